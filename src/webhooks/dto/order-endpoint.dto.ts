import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

import { ORDER_EVENT_TYPES } from '../webhook-event-types';

/** POST /acp/webhooks/order_endpoints (closed body). */
export class CreateOrderEndpointDto {
  @ApiProperty({
    example: 'https://platform.example/agentic_checkout/webhooks/order_events',
    maxLength: 2048,
    description:
      'Where order_create/order_update events are POSTed. https (live) or http/https (sandbox, test); in live mode the host must resolve to public addresses only.',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(2048)
  url: string;

  @ApiPropertyOptional({ maxLength: 200, example: 'orders for our assistant' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  description?: string;
}

export class OrderEndpointResponse {
  @ApiProperty({ example: 'whe_…' }) id: string;
  @ApiProperty({ enum: ['order_webhook_endpoint'] }) object: 'order_webhook_endpoint';
  @ApiProperty() url: string;
  @ApiProperty({ nullable: true, type: String }) description: string | null;
  @ApiProperty({ type: [String], example: [...ORDER_EVENT_TYPES] }) event_types: string[];
  @ApiProperty({ enum: ['enabled', 'disabled'] }) status: 'enabled' | 'disabled';
  @ApiProperty({
    enum: ['disabled_by_user', 'retries_exhausted', 'gone'],
    nullable: true,
    type: String,
    description:
      'disabled_by_user; retries_exhausted: a delivery failed its whole retry schedule; gone: the receiver answered 410 Gone',
  })
  disabled_reason: string | null;
  @ApiProperty({ nullable: true, type: String }) disabled_at: string | null;
  @ApiPropertyOptional({
    example: 'whsec_…',
    description:
      'Merchant-Signature HMAC-SHA256 key (its UTF-8 bytes, as shown). Only in the create response; never shown again.',
  })
  secret?: string;
  @ApiProperty() created_at: string;
  @ApiProperty() updated_at: string;
}

export class OrderEndpointList {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [OrderEndpointResponse] }) data: OrderEndpointResponse[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ nullable: true, type: String }) next_cursor: string | null;
}
