import { ApiProperty } from '@nestjs/swagger';

import { ReceiptDoc } from '../../receipts/dto/receipt.response';
import type { ReceiptView } from '../../receipts/receipts.service';
import { RefundListResponse } from '../../refunds/dto/refund.response';

export class IntentSourceResponse {
  @ApiProperty({ enum: ['checkout', 'quote', 'hosted'] }) kind: string;
  @ApiProperty({ example: 'qt_…' }) id: string;
}

export class IntentResponse {
  @ApiProperty({ example: 'pi_…' }) id: string;
  @ApiProperty({ enum: ['payment_intent'] }) object: 'payment_intent';
  @ApiProperty({
    enum: ['seller', 'buyer'],
    description: "The calling agent's side of this payment",
  })
  side: string;
  @ApiProperty({ enum: ['requires_approval', 'processing', 'settled', 'declined', 'failed'] })
  status: string;
  @ApiProperty() amount_paise: number;
  @ApiProperty() amount_refunded_paise: number;
  @ApiProperty({
    description:
      'Paise a refund may still ask on this rail: what is left of the payment (the amount less refunds succeeded, processing or waiting for approval) when the rail can refund it; 0 when nothing can be refunded (not settled, all refunded, or a remainder below refund_minimum_paise; see not_refundable_reason)',
    example: 15000,
  })
  refundable_paise: number;
  @ApiProperty({
    description:
      "The rail's smallest refund, in paise (gateway: 100 = ₹1.00 by default, GATEWAY_REFUND_MIN_PAISE; sandbox: 1). A remainder below it cannot be refunded on this rail",
    example: 100,
  })
  refund_minimum_paise: number;
  @ApiProperty({
    nullable: true,
    type: Number,
    description:
      "The rail's largest single refund, in paise; null: no limit beyond what is left (gateway: GATEWAY_REFUND_MAX_PAISE, unset by default)",
  })
  refund_maximum_paise: number | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description:
      'Why refundable_paise is 0, in a sentence for people (e.g. a remainder below the rail’s minimum refund); null when something can be refunded',
    example:
      'The ₹0.50 left of this payment is less than the smallest refund the payment gateway makes (₹1.00), so it cannot be refunded on this rail.',
  })
  not_refundable_reason: string | null;
  @ApiProperty({ enum: ['INR'] }) currency: string;
  @ApiProperty() buyer_agent_id: string;
  @ApiProperty() seller_agent_id: string;
  @ApiProperty({ type: IntentSourceResponse }) source: IntentSourceResponse;
  @ApiProperty() description: string;
  @ApiProperty({ nullable: true, type: String }) mandate_id: string | null;
  @ApiProperty({ nullable: true, type: String }) token_id: string | null;
  @ApiProperty({ nullable: true, type: String }) decline_code: string | null;
  @ApiProperty({ nullable: true, type: String }) decline_reason: string | null;
  @ApiProperty({ enum: ['sandbox', 'gateway'] }) rail: string;
  @ApiProperty({ nullable: true, type: String }) rail_reference: string | null;
  @ApiProperty({ nullable: true, type: String }) receipt_id: string | null;
  @ApiProperty() created_at: string;
  @ApiProperty({ nullable: true, type: String }) settled_at: string | null;
}

export class IntentListResponse {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [IntentResponse] }) data: IntentResponse[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ nullable: true, type: String }) next_cursor: string | null;
}

export class IntentDetailResponse extends IntentResponse {
  @ApiProperty({
    nullable: true,
    type: () => ReceiptDoc,
    description:
      'The signed, hash-chained receipt (as GET /v1/pay/receipts/{id}); null until settled',
  })
  receipt: ReceiptView | null;
  @ApiProperty({ type: RefundListResponse, description: 'Refunds, newest first (first 100)' })
  refunds: RefundListResponse;
}
