import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/**
 * ACP 2026-04-17 `Order` as we send it (webhooks and GET /acp/orders/{id}). Status and type
 * strings are open: the listed values are the defined ones, others may appear and must be accepted.
 */
const OPEN = 'Open enum: accept values not listed.';

export class AcpOrderQuantity {
  @ApiProperty({ minimum: 1 }) ordered: number;
  @ApiProperty({ minimum: 0 }) current: number;
  @ApiPropertyOptional({ minimum: 0 }) fulfilled?: number;
}

export class AcpOrderLineItem {
  @ApiProperty({ example: 'li_1' }) id: string;
  @ApiProperty() title: string;
  @ApiPropertyOptional({ description: 'The SKU' }) product_id?: string;
  @ApiProperty({ type: AcpOrderQuantity }) quantity: AcpOrderQuantity;
  @ApiPropertyOptional({ description: 'Paise' }) unit_price?: number;
  @ApiPropertyOptional({ description: 'Paise' }) subtotal?: number;
  @ApiPropertyOptional({
    example: 'fulfilled',
    description: `processing, partial, fulfilled, removed. ${OPEN}`,
  })
  status?: string;
}

export class AcpLineItemReference {
  @ApiProperty() id: string;
  @ApiProperty({ minimum: 1 }) quantity: number;
}

export class AcpFulfillmentEvent {
  @ApiProperty() id: string;
  @ApiProperty({ example: 'delivered', description: OPEN }) type: string;
  @ApiProperty({ format: 'date-time' }) occurred_at: string;
}

export class AcpDigitalDelivery {
  @ApiPropertyOptional({ format: 'uri', description: 'The order page' }) access_url?: string;
}

export class AcpFulfillment {
  @ApiProperty() id: string;
  @ApiProperty({ enum: ['shipping', 'pickup', 'digital'] }) type: string;
  @ApiPropertyOptional({ example: 'delivered', description: OPEN }) status?: string;
  @ApiPropertyOptional({ type: [AcpLineItemReference] }) line_items?: AcpLineItemReference[];
  @ApiPropertyOptional({ type: AcpDigitalDelivery }) digital_delivery?: AcpDigitalDelivery;
  @ApiPropertyOptional({ type: [AcpFulfillmentEvent] }) events?: AcpFulfillmentEvent[];
}

export class AcpOrderAdjustment {
  @ApiProperty({ example: 'rf_…', description: 'The refund id' }) id: string;
  @ApiProperty({ example: 'refund', description: OPEN }) type: string;
  @ApiProperty({ format: 'date-time' }) occurred_at: string;
  @ApiProperty({ example: 'completed', description: `pending, completed, failed. ${OPEN}` })
  status: string;
  @ApiPropertyOptional({ description: 'Paise' }) amount?: number;
  @ApiPropertyOptional({ example: 'inr' }) currency?: string;
  @ApiPropertyOptional({ description: "The seller's reason" }) description?: string;
  @ApiPropertyOptional({
    example: 'succeeded',
    description: 'Our refund status or failure code',
  })
  reason?: string;
}

export class AcpOrderTotal {
  @ApiProperty({ example: 'total' }) type: string;
  @ApiProperty() display_text: string;
  @ApiProperty({ description: 'Paise' }) amount: number;
}

export class AcpOrderResponse {
  @ApiProperty({ enum: ['order'] }) type: 'order';
  @ApiProperty({ example: 'ord_…' }) id: string;
  @ApiProperty({ example: 'cs_…' }) checkout_session_id: string;
  @ApiProperty({ format: 'uri' }) permalink_url: string;
  @ApiProperty({
    example: 'completed',
    description: `created, confirmed, manual_review, processing, shipped, completed, canceled. ${OPEN}`,
  })
  status: string;
  @ApiProperty({ type: [AcpOrderLineItem] }) line_items: AcpOrderLineItem[];
  @ApiProperty({ type: [AcpFulfillment] }) fulfillments: AcpFulfillment[];
  @ApiProperty({ type: [AcpOrderAdjustment], description: 'Refunds, any status' })
  adjustments: AcpOrderAdjustment[];
  @ApiProperty({
    type: [AcpOrderTotal],
    description: 'total is always the original charge; amount_refunded the refunds that succeeded',
  })
  totals: AcpOrderTotal[];
}
