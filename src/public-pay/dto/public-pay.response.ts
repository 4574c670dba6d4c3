import { ApiProperty } from '@nestjs/swagger';

import { PublicQuote } from '../../quotes/dto/quote.response';

const STATES_DOC =
  'created → processing (complete; on the sandbox rail it ends in the same request) → paid | failed; ' +
  'created → expired (30 min, never after the quote expires, or the quote is paid, canceled or expires by another path). ' +
  'processing never expires; paid, failed and expired are final (paid never moves again); after failed or expired, start again for a new checkout.';

/** A captured payment on this checkout that could not settle and is refunded in full. */
export class CaptureRefundResponse {
  @ApiProperty({ example: 'crf_…', description: 'Also the id of its signed receipt chain' })
  id: string;
  @ApiProperty({
    enum: ['refunding', 'refunded'],
    description:
      'refunding: held for a full refund (asked of the gateway, or about to be); refunded: the gateway processed it',
  })
  status: 'refunding' | 'refunded';
  @ApiProperty({ description: 'The amount captured and refunded in full, in paise' })
  amount_paise: number;
  @ApiProperty({ description: "The gateway's payment reference (pay_…)" })
  payment_reference: string;
  @ApiProperty({ nullable: true, type: String, description: "The gateway's refund (rfnd_…)" })
  refund_reference: string | null;
  @ApiProperty({ example: 'daily_cap_exceeded', description: 'Why the payment could not settle' })
  reason_code: string;
  @ApiProperty({ description: 'What happened, in words for the person who paid' })
  message: string;
  @ApiProperty({ nullable: true, type: String }) refunded_at: string | null;
}

export class HostedCheckoutResponse {
  @ApiProperty({ example: 'hco_…' }) id: string;
  @ApiProperty({ enum: ['hosted_checkout'] }) object: 'hosted_checkout';
  @ApiProperty({ example: 'qt_…' }) quote_id: string;
  @ApiProperty({
    enum: ['created', 'processing', 'paid', 'failed', 'expired'],
    description: STATES_DOC,
  })
  status: string;
  @ApiProperty({ description: "The quote's total in paise, fixed by the server" })
  amount_paise: number;
  @ApiProperty({ enum: ['INR'] }) currency: 'INR';
  @ApiProperty({ enum: ['sandbox', 'gateway'] }) rail: string;
  @ApiProperty({ description: 'Payment attempts run on this checkout' }) attempts: number;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'The payment intent (pi_…): settled once paid; declined/failed when refused',
  })
  intent_id: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description: "The rail's payment reference, once paid",
  })
  payment_reference: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'The signed receipt (rcp_…), once paid',
  })
  receipt_id: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'payment_failed' }) failure_code:
    string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'When failed or expired: why, in words for the person',
  })
  failure_reason: string | null;
  @ApiProperty() expires_at: string;
  @ApiProperty() created_at: string;
  @ApiProperty() updated_at: string;
  @ApiProperty({ nullable: true, type: String }) completed_at: string | null;
  @ApiProperty({
    description: '{app_url}/pay/<quote_id>/status?checkout=<id>: the status page for the person',
  })
  status_url: string;
  // What the gateway's checkout widget needs (spec §2 "Hosted checkout"); null on the sandbox
  // rail. Nothing here is secret: the key id is public, the key secret never leaves the server.
  @ApiProperty({
    nullable: true,
    type: String,
    description: "Gateway rail: the gateway's public key id (the widget's `key`)",
  })
  key_id: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'Gateway rail: the gateway order (order_…) the widget pays',
  })
  order_id: string | null;
  @ApiProperty({
    nullable: true,
    type: Number,
    description: 'Gateway rail: the amount in paise (the same as amount_paise)',
  })
  amount: number | null;
  @ApiProperty({ nullable: true, type: String, description: 'Gateway rail: the seller’s name' })
  name: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'Gateway rail: what is paid for' })
  description: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description:
      'Gateway rail: {app_url}/pay/<quote_id>/return, where the gateway posts gateway_payment_id, gateway_order_id and gateway_signature in redirect mode',
  })
  callback_url: string | null;
  @ApiProperty({
    type: [CaptureRefundResponse],
    description:
      'Gateway rail: payments captured on this checkout that could not settle (the buyer’s rules refused them, the quote was paid another way, …), each refunded in full; empty otherwise',
  })
  refunds: CaptureRefundResponse[];
}

/** What the hosted payment page shows (spec §2 "Public quote view"). */
export class PublicPayView {
  @ApiProperty({ type: PublicQuote }) quote: PublicQuote;
  @ApiProperty({ enum: ['sandbox', 'gateway'] }) rail: 'sandbox' | 'gateway';
  @ApiProperty({
    enum: ['sandbox', 'test', 'live'],
    description: 'test is shown on the page as TEST MODE',
  })
  mode: 'sandbox' | 'test' | 'live';
  @ApiProperty() payable: boolean;
  @ApiProperty({
    nullable: true,
    type: String,
    description:
      "When payable is false: why, in words for the buyer (expired, paid, canceled, waiting for a decision, or refused by the buyer's rules such as its daily cap)",
  })
  reason: string | null;
  @ApiProperty({
    nullable: true,
    type: HostedCheckoutResponse,
    description: "null until a checkout starts; then the quote's latest checkout",
  })
  checkout: HostedCheckoutResponse | null;
}
