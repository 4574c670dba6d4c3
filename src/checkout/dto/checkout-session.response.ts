import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

const OBJECT = { type: 'object', additionalProperties: true } as const;
const OBJECTS = { type: 'array', items: { type: 'object', additionalProperties: true } } as const;

/**
 * ACP 2026-04-17 `CheckoutSession` / `CheckoutSessionWithOrder` as we emit it (docs/acp.md §4, §9).
 * The official JSON Schema is the contract (tests validate every response against it); this class
 * only documents the top level in our OpenAPI.
 */
export class AcpCheckoutSession {
  @ApiProperty({ example: 'cs_…' }) id: string;
  @ApiProperty({ example: { version: '2026-04-17' } }) protocol: { version: string };
  @ApiProperty({
    enum: [
      'not_ready_for_payment',
      'ready_for_payment',
      'pending_approval',
      'completed',
      'canceled',
      'expired',
    ],
  })
  status: string;
  @ApiProperty({ example: 'inr' }) currency: string;
  @ApiProperty({ ...OBJECT, description: 'payment.handlers[] holds the svc_upi_mandate handler' })
  capabilities: Record<string, unknown>;
  @ApiPropertyOptional(OBJECT) buyer?: Record<string, unknown>;
  @ApiProperty(OBJECTS) line_items: Record<string, unknown>[];
  @ApiProperty(OBJECTS) fulfillment_options: Record<string, unknown>[];
  @ApiProperty(OBJECTS) selected_fulfillment_options: Record<string, unknown>[];
  @ApiProperty({ ...OBJECTS, description: 'items_base_amount, subtotal, total (paise)' })
  totals: Record<string, unknown>[];
  @ApiProperty({ ...OBJECTS, description: 'MessageInfo / MessageWarning / MessageError' })
  messages: Record<string, unknown>[];
  @ApiProperty({ ...OBJECTS, description: 'terms_of_use and privacy_policy' }) links: Record<
    string,
    unknown
  >[];
  @ApiProperty() created_at: string;
  @ApiProperty() updated_at: string;
  @ApiProperty() expires_at: string;
  @ApiProperty({ example: 'en-IN' }) locale: string;
  @ApiProperty({ example: 'Asia/Kolkata' }) timezone: string;
  @ApiProperty({ ...OBJECT, description: 'svc_receipt_id once completed' }) metadata: Record<
    string,
    unknown
  >;
  @ApiPropertyOptional({
    ...OBJECT,
    description: 'Present once completed: {type, id, checkout_session_id, permalink_url, status}',
  })
  order?: Record<string, unknown>;
}
