import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

import { BuyerDto, FulfillmentDetailsDto } from './checkout-request.parts';

/*
 * ACP 2026-04-17 `CheckoutSession` / `CheckoutSessionWithOrder` as we emit it (docs/acp.md §4, §9),
 * typed down to every nested object so a generated client knows each field. The official JSON
 * Schema stays the contract (tests validate every response against it and against this). The
 * TypeScript field types stay loose where the mapper builds plain objects; the swagger metadata
 * is what the OpenAPI document and typed clients see.
 */

const TOTAL_TYPES = [
  'items_base_amount',
  'items_discount',
  'subtotal',
  'discount',
  'fulfillment',
  'tax',
  'fee',
  'total',
] as const;

export class AcpProtocol {
  @ApiProperty({ example: '2026-04-17' }) version: string;
}

export class AcpTotal {
  @ApiProperty({ enum: TOTAL_TYPES }) type: string;
  @ApiProperty({ example: 'Subtotal' }) display_text: string;
  @ApiProperty({ type: 'integer', description: 'Paise', example: 49900 }) amount: number;
}

export class AcpItemRef {
  @ApiProperty({ description: 'The offer SKU', example: 'sku_…' }) id: string;
}

export class AcpSellerDetails {
  @ApiProperty({ example: 'Chai Corner' }) name: string;
}

export class AcpLineItem {
  @ApiProperty({ example: 'li_…' }) id: string;
  @ApiProperty({ type: () => AcpItemRef }) item: AcpItemRef;
  @ApiProperty({ type: 'integer', minimum: 1 }) quantity: number;
  @ApiProperty() name: string;
  @ApiProperty({ type: 'integer', description: 'Paise per unit' }) unit_amount: number;
  @ApiProperty() sku: string;
  @ApiProperty() category: string;
  @ApiProperty({ type: () => AcpSellerDetails }) marketplace_seller_details: AcpSellerDetails;
  @ApiProperty({ type: () => AcpTotal, isArray: true }) totals: AcpTotal[];
}

export class AcpFulfillmentOption {
  @ApiProperty({ enum: ['digital'] }) type: 'digital';
  @ApiProperty({ example: 'fo_digital' }) id: string;
  @ApiProperty({ example: 'Digital delivery' }) title: string;
  @ApiProperty({ type: () => AcpTotal, isArray: true }) totals: AcpTotal[];
}

export class AcpSelectedFulfillmentOption {
  @ApiProperty({ enum: ['digital'] }) type: 'digital';
  @ApiProperty({ example: 'fo_digital' }) option_id: string;
  @ApiProperty({ type: [String] }) item_ids: string[];
}

export class AcpMessage {
  @ApiProperty({ enum: ['info', 'warning', 'error'] }) type: 'info' | 'warning' | 'error';
  @ApiPropertyOptional({ example: 'payment_declined' }) code?: string;
  @ApiPropertyOptional({ enum: ['info', 'low', 'medium', 'high', 'critical'] }) severity?: string;
  @ApiPropertyOptional({
    enum: ['recoverable', 'requires_buyer_input', 'requires_buyer_review'],
  })
  resolution?: string;
  @ApiPropertyOptional({ description: 'RFC 9535 JSONPath', example: '$.line_items[0]' })
  param?: string;
  @ApiProperty({ enum: ['plain', 'markdown'] }) content_type: 'plain' | 'markdown';
  @ApiProperty() content: string;
}

export class AcpLink {
  @ApiProperty({ enum: ['terms_of_use', 'privacy_policy'] }) type: string;
  @ApiProperty() title: string;
  @ApiProperty({ format: 'uri' }) url: string;
}

export class AcpUpiMandateHandlerConfig {
  @ApiProperty({ example: 'agt_…', description: 'The seller agent (allowance.merchant_id)' })
  merchant_id: string;
  @ApiProperty({ enum: ['svc'] }) psp: 'svc';
  @ApiProperty({ enum: ['sandbox', 'production'] }) environment: 'sandbox' | 'production';
  @ApiProperty({ format: 'uri' }) delegate_payment_url: string;
  @ApiProperty({ enum: ['svc_mandate'] }) instrument_type: 'svc_mandate';
  @ApiProperty({ enum: ['svc_delegated_token'] }) credential_type: 'svc_delegated_token';
  @ApiProperty({ enum: ['upi_reserve_pay', 'upi_otm'], isArray: true }) rails: string[];
}

export class AcpPaymentHandler {
  @ApiProperty({ example: 'svc_upi_mandate' }) id: string;
  @ApiProperty({ example: 'com.svc.upi_mandate' }) name: string;
  @ApiProperty({ example: 'UPI mandate' }) display_name: string;
  @ApiProperty({ example: '2026-04-17' }) version: string;
  @ApiProperty({ format: 'uri' }) spec: string;
  @ApiProperty() requires_delegate_payment: boolean;
  @ApiProperty() requires_pci_compliance: boolean;
  @ApiProperty({ example: 'svc' }) psp: string;
  @ApiProperty({ format: 'uri' }) config_schema: string;
  @ApiProperty({ type: 'string', format: 'uri', isArray: true }) instrument_schemas: string[];
  @ApiProperty({ type: () => AcpUpiMandateHandlerConfig }) config: AcpUpiMandateHandlerConfig;
  @ApiProperty({ type: 'integer' }) display_order: number;
}

export class AcpPaymentCapability {
  @ApiProperty({ type: () => AcpPaymentHandler, isArray: true }) handlers: AcpPaymentHandler[];
}

export class AcpInterventions {
  @ApiProperty({ type: [String] }) supported: string[];
  @ApiProperty({ type: [String] }) required: string[];
  @ApiProperty({ enum: ['always', 'conditional', 'optional'] }) enforcement: string;
}

export class AcpCapabilities {
  @ApiProperty({
    type: () => AcpPaymentCapability,
    description: 'handlers[] holds the svc_upi_mandate handler',
  })
  payment: AcpPaymentCapability;
  @ApiProperty({
    type: () => AcpInterventions,
    description: 'What both sides support; we support none',
  })
  interventions: AcpInterventions;
}

export class AcpSessionMetadata {
  @ApiPropertyOptional({ example: 'rcpt_…', description: 'Set once completed' })
  svc_receipt_id?: string;
}

export class AcpCheckoutOrder {
  @ApiProperty({ enum: ['order'] }) type: 'order';
  @ApiProperty({ example: 'ord_…' }) id: string;
  @ApiProperty({ example: 'cs_…' }) checkout_session_id: string;
  @ApiProperty({ format: 'uri' }) permalink_url: string;
  @ApiProperty({
    example: 'confirmed',
    description:
      'We send confirmed. Open (ACP PR #232, docs/acp.md "Accepted extensions"): defined values are created, confirmed, manual_review, processing, shipped, completed, canceled; accept any other',
  })
  status: string;
}

export class AcpCheckoutSession {
  @ApiProperty({ example: 'cs_…' }) id: string;
  @ApiProperty({ type: () => AcpProtocol }) protocol: { version: string };
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
  @ApiProperty({ enum: ['inr'] }) currency: string;
  @ApiProperty({ type: () => AcpCapabilities }) capabilities: Record<string, unknown>;
  @ApiPropertyOptional({ type: () => BuyerDto }) buyer?: Record<string, unknown>;
  @ApiProperty({ type: () => AcpLineItem, isArray: true }) line_items: Record<string, unknown>[];
  @ApiPropertyOptional({
    type: () => FulfillmentDetailsDto,
    description:
      'The contact and address sent on create, update or complete (ACP PR #200); absent when none was sent',
  })
  fulfillment_details?: Record<string, unknown>;
  @ApiProperty({ type: () => AcpFulfillmentOption, isArray: true })
  fulfillment_options: Record<string, unknown>[];
  @ApiProperty({ type: () => AcpSelectedFulfillmentOption, isArray: true })
  selected_fulfillment_options: Record<string, unknown>[];
  @ApiProperty({
    type: () => AcpTotal,
    isArray: true,
    description: 'items_base_amount, subtotal, total (paise)',
  })
  totals: Record<string, unknown>[];
  @ApiProperty({
    type: () => AcpMessage,
    isArray: true,
    description: 'MessageInfo / MessageWarning / MessageError',
  })
  messages: Record<string, unknown>[];
  @ApiProperty({
    type: () => AcpLink,
    isArray: true,
    description: 'terms_of_use and privacy_policy',
  })
  links: Record<string, unknown>[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
  @ApiProperty({ format: 'date-time' }) expires_at: string;
  @ApiProperty({ example: 'en-IN' }) locale: string;
  @ApiProperty({ example: 'Asia/Kolkata' }) timezone: string;
  @ApiProperty({ type: () => AcpSessionMetadata, description: 'svc_receipt_id once completed' })
  metadata: Record<string, unknown>;
  @ApiPropertyOptional({ type: () => AcpCheckoutOrder, description: 'Present once completed' })
  order?: Record<string, unknown>;
}
