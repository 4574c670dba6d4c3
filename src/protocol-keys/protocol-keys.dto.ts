import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

import { PUBLIC_KEY_SCHEMA } from '../openapi/public-key.schema';
import type { ProtocolKeyRole } from './protocol-key.entity';

export class CreateProtocolKeyDto {
  @ApiProperty({
    enum: ['merchant', 'buyer'],
    description:
      'merchant: checkout routes, bound to a seller agent. buyer: delegate_payment and receipts, bound to a buyer agent.',
  })
  @IsIn(['merchant', 'buyer'])
  role: ProtocolKeyRole;

  @ApiProperty({
    example: 'agt_…',
    description: 'The agent the key acts for (seller/both for merchant, buyer/both for buyer)',
  })
  @IsString()
  @Matches(/^agt_[A-Za-z0-9]+$/)
  agent_id: string;

  @ApiPropertyOptional({ example: 'assistant platform', maxLength: 100 })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name?: string;

  @ApiPropertyOptional({
    ...PUBLIC_KEY_SCHEMA,
    description:
      'Ed25519 or P-256 public key (PEM SPKI or JWK). When set, every request with this key must carry Signature and Timestamp.',
  })
  @IsOptional()
  public_key?: string | Record<string, unknown>;
}

export class ProtocolKeyResponse {
  @ApiProperty({ example: 'pkey_…' }) id: string;
  @ApiProperty({ enum: ['protocol_key'] }) object: 'protocol_key';
  @ApiProperty({ enum: ['merchant', 'buyer'] }) role: ProtocolKeyRole;
  @ApiProperty() agent_id: string;
  @ApiProperty() name: string;
  @ApiProperty({ example: 'acpk_…x9Qz' }) hint: string;
  @ApiPropertyOptional({ description: 'The bearer secret (acpk_…). Only in the create response.' })
  key?: string;
  @ApiProperty({ enum: ['ed25519', 'p256'], nullable: true, type: String }) public_key_alg:
    string | null;
  @ApiProperty() created_at: string;
  @ApiProperty({ nullable: true, type: String }) revoked_at: string | null;
}
