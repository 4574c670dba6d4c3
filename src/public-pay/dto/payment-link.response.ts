import { ApiProperty } from '@nestjs/swagger';

const LINK_STATES =
  'created: live, waiting for the payer (the gateway link is open until expires_at, the quote’s own expiry). ' +
  'processing: the captured payment is being settled. paid: settled through the payment pipeline (signed receipt, quote paid, intent.settled to the seller); final. ' +
  "failed: the gateway captured a payment but the buyer's rules refused it (failure_reason says why; the capture is kept for a person to refund). " +
  'expired: the quote expired, was canceled, or was paid another way before the link was paid (a canceled quote also cancels the link at the gateway).';

/** A gateway payment link for a quote (docs/gateway.md "Payment links"). */
export class PaymentLinkResponse {
  @ApiProperty({ example: 'plk_…' }) id: string;
  @ApiProperty({ enum: ['payment_link'] }) object: 'payment_link';
  @ApiProperty({ example: 'qt_…' }) quote_id: string;
  @ApiProperty({
    enum: ['created', 'processing', 'paid', 'failed', 'expired'],
    description: LINK_STATES,
  })
  status: string;
  @ApiProperty({ description: "The quote's total in paise: the link is for exactly this amount" })
  amount_paise: number;
  @ApiProperty({ enum: ['INR'] }) currency: 'INR';
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'https://gateway.example/l/plink_…',
    description:
      "The gateway's payment page for this link: send it to the buyer's person. Null only while the gateway has not created the link yet.",
  })
  url: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'plink_…' }) gateway_link_id: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'order_…',
    description: "The gateway order the link's payment pays",
  })
  gateway_order_id: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'The payment intent (pi_…), once a payment was settled or refused',
  })
  intent_id: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description: "The gateway's payment id, once paid",
  })
  payment_reference: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'The signed receipt (rcp_…), once paid',
  })
  receipt_id: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'checkout_expired' }) failure_code:
    string | null;
  @ApiProperty({ nullable: true, type: String }) failure_reason: string | null;
  @ApiProperty({ description: "The link's expiry at the gateway: the quote's expires_at" })
  expires_at: string;
  @ApiProperty() created_at: string;
  @ApiProperty() updated_at: string;
  @ApiProperty({ nullable: true, type: String }) completed_at: string | null;
}
