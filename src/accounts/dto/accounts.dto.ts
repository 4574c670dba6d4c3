import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

import { NULLABLE_PUBLIC_KEY_SCHEMA, PUBLIC_KEY_SCHEMA } from '../../openapi/public-key.schema';
import type { AgentRole } from '../entities/agent.entity';

export class CreateApiKeyDto {
  @ApiProperty({ example: 'checkout server', maxLength: 100 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name: string;
}

export class ApiKeyResponse {
  @ApiProperty({ example: 'key_…' }) id: string;
  @ApiProperty({ enum: ['api_key'] }) object: 'api_key';
  @ApiProperty() name: string;
  @ApiProperty({
    description: 'Last four characters, for recognising the key',
    example: 'sk_test_…Ab3x',
  })
  hint: string;
  @ApiPropertyOptional({
    description: 'The secret. Present only in the create response; never shown again.',
  })
  secret?: string;
  @ApiProperty() created_at: string;
  @ApiProperty({ nullable: true, type: String }) revoked_at: string | null;
}

export class CreateAgentDto {
  @ApiProperty({ example: 'Chai Co storefront', maxLength: 120 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(120)
  name: string;

  @ApiProperty({ enum: ['seller', 'buyer', 'both'] })
  @IsIn(['seller', 'buyer', 'both'])
  role: AgentRole;

  @ApiPropertyOptional({
    ...PUBLIC_KEY_SCHEMA,
    description:
      'Ed25519 or P-256 public key, PEM (SPKI) string or JWK object. When set, every request with this agent credential must be signed.',
  })
  @IsOptional()
  public_key?: string | Record<string, unknown>;
}

export class SetPublicKeyDto {
  @ApiProperty({
    ...NULLABLE_PUBLIC_KEY_SCHEMA,
    description: 'Ed25519 or P-256 public key (PEM or JWK); null removes it',
  })
  @IsOptional()
  public_key: string | Record<string, unknown> | null;
}

export class AgentResponse {
  @ApiProperty({ example: 'agt_…' }) id: string;
  @ApiProperty({ enum: ['agent'] }) object: 'agent';
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['seller', 'buyer', 'both'] }) role: AgentRole;
  @ApiProperty() credential_hint: string;
  @ApiPropertyOptional({
    description: 'Agent credential (agc_…). Present only when created or rotated.',
  })
  credential?: string;
  @ApiProperty({ enum: ['ed25519', 'p256'], nullable: true, type: String }) public_key_alg:
    string | null;
  @ApiProperty() created_at: string;
}
