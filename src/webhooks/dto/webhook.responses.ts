import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class WebhookEndpointResponse {
  @ApiProperty({ example: 'whe_…' }) id: string;
  @ApiProperty({ enum: ['webhook_endpoint'] }) object: 'webhook_endpoint';
  @ApiProperty() url: string;
  @ApiProperty({ type: [String] }) event_types: string[];
  @ApiProperty({ nullable: true, type: String, description: 'null: every agent of the workspace' })
  agent_id: string | null;
  @ApiProperty({ nullable: true, type: String }) description: string | null;
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
      'Standard Webhooks signing secret. Only in the create and rotate-secret responses; never shown again.',
  })
  secret?: string;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'Until then deliveries also carry a signature with the previous secret',
  })
  previous_secret_expires_at: string | null;
  @ApiProperty() created_at: string;
  @ApiProperty() updated_at: string;
}

export class WebhookDeliveryResponse {
  @ApiProperty({ example: 'whd_…' }) id: string;
  @ApiProperty({ enum: ['webhook_delivery'] }) object: 'webhook_delivery';
  @ApiProperty() endpoint_id: string;
  @ApiProperty({ description: 'Also the webhook-id header of every attempt' }) event_id: string;
  @ApiProperty() event_type: string;
  @ApiProperty({ enum: ['pending', 'delivered', 'failed'] }) status:
    'pending' | 'delivered' | 'failed';
  @ApiProperty() attempts: number;
  @ApiProperty({ nullable: true, type: Number }) last_status_code: number | null;
  @ApiProperty({ nullable: true, type: String }) last_error: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'Next scheduled attempt; null once delivered or failed',
  })
  next_attempt_at: string | null;
  @ApiProperty({ nullable: true, type: String }) delivered_at: string | null;
  @ApiProperty({ nullable: true, type: String }) failed_at: string | null;
  @ApiProperty() created_at: string;
}

export class WebhookAttemptResponse {
  @ApiProperty({ example: 'wha_…' }) id: string;
  @ApiProperty({ enum: ['webhook_attempt'] }) object: 'webhook_attempt';
  @ApiProperty() delivery_id: string;
  @ApiProperty({ description: '1, 2, 3… within the delivery' }) attempt: number;
  @ApiProperty({ enum: ['scheduled', 'manual'] }) trigger: 'scheduled' | 'manual';
  @ApiProperty() succeeded: boolean;
  @ApiProperty({ nullable: true, type: Number }) status_code: number | null;
  @ApiProperty() duration_ms: number;
  @ApiProperty({ nullable: true, type: String }) error: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'First 1 KB of the response body' })
  response_body: string | null;
  @ApiProperty() created_at: string;
}

export class EventResponse {
  @ApiProperty({ example: 'evt_…' }) id: string;
  @ApiProperty({ enum: ['event'] }) object: 'event';
  @ApiProperty({ example: 'intent.settled' }) type: string;
  @ApiProperty() created_at: string;
  @ApiProperty({ description: 'The seller agent the event concerns' }) agent_id: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) data: Record<string, unknown>;
}
