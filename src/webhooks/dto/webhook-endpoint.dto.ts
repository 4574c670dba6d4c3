import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';

import { ALL_EVENTS, WEBHOOK_EVENT_TYPES } from '../webhook-event-types';

export class CreateWebhookEndpointDto {
  @ApiProperty({
    example: 'https://seller.example/webhooks',
    maxLength: 2048,
    description:
      'https (live) or http/https (sandbox, test). In live mode the host must resolve to public addresses only.',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(2048)
  url: string;

  @ApiProperty({
    type: [String],
    enum: [...WEBHOOK_EVENT_TYPES, ALL_EVENTS],
    example: ['intent.settled', 'refund.succeeded'],
    description: "Event types to receive, or ['*'] for all (including types added later).",
  })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(50)
  @ArrayUnique()
  @IsIn([...WEBHOOK_EVENT_TYPES, ALL_EVENTS], { each: true })
  event_types: string[];

  @ApiPropertyOptional({
    example: 'agt_…',
    description: 'Only events of this seller agent (default: every agent of the workspace)',
  })
  @IsOptional()
  @IsString()
  @Matches(/^agt_[A-Za-z0-9]+$/)
  agent_id?: string;

  @ApiPropertyOptional({ maxLength: 200, example: 'order fulfilment' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  description?: string;
}

export class RotateWebhookSecretDto {
  @ApiPropertyOptional({
    minimum: 0,
    maximum: 86400,
    default: 86400,
    description:
      'How long deliveries stay signed with the old secret too (a second signature); 0 retires it now.',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(86400)
  previous_secret_expires_in_seconds?: number;
}
