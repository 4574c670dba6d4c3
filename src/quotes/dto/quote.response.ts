import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class QuoteLineItemResponse {
  @ApiProperty() name: string;
  @ApiProperty() quantity: number;
  @ApiProperty() unit_paise: number;
  @ApiProperty({ description: 'unit_paise × quantity' }) amount_paise: number;
  @ApiPropertyOptional({ description: 'Offer SKU; only on quotes made from an offer' })
  sku?: string;
}

export class QuoteResponse {
  @ApiProperty({ example: 'qt_…' }) id: string;
  @ApiProperty({ enum: ['quote'] }) object: 'quote';
  @ApiProperty({ enum: ['open', 'processing', 'pending_approval', 'paid', 'expired', 'canceled'] })
  status: string;
  @ApiProperty({
    enum: ['offer', 'seller'],
    description: 'Made from a published offer, or free-form by the seller',
  })
  origin: string;
  @ApiProperty() seller_agent_id: string;
  @ApiProperty() seller_name: string;
  @ApiProperty({ description: 'The one buyer agent the quote is addressed to' })
  buyer_agent_id: string;
  @ApiProperty({ example: 'food.beverages' }) category: string;
  @ApiProperty() amount_paise: number;
  @ApiProperty({ enum: ['INR'] }) currency: 'INR';
  @ApiProperty({ type: [QuoteLineItemResponse] }) line_items: QuoteLineItemResponse[];
  @ApiProperty() expires_at: string;
  @ApiProperty() created_at: string;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'The payment intent, while pending_approval and once paid',
  })
  intent_id: string | null;
  @ApiProperty({ nullable: true, type: String }) paid_at: string | null;
  @ApiProperty({ nullable: true, type: String }) canceled_at: string | null;
  @ApiProperty({
    example: 'https://app.example.in/app/pay/qt_…',
    description:
      "The hosted payment page ({app_url}/pay/<quote_id>): send it to the buyer's person, who sees the quote and pays with no sign-in. Anyone holding the link can open it: share it like the quote itself.",
  })
  pay_url: string;
}

export class QuoteIntentOutcome {
  @ApiProperty({ example: 'pi_…' }) id: string;
  @ApiProperty({
    enum: ['settled', 'processing', 'requires_approval', 'declined', 'failed'],
    description:
      'processing: the rail has not answered yet (the quote is processing; GET /v1/pay/intents/{id} shows the outcome)',
  })
  status: string;
  @ApiProperty() amount_paise: number;
  @ApiProperty({ nullable: true, type: String, example: 'mandate_cap_exceeded' }) decline_code:
    string | null;
  @ApiProperty({ nullable: true, type: String }) decline_reason: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'Signed receipt, once settled' })
  receipt_id: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'The person approval, while requires_approval',
  })
  approval_id: string | null;
}

export class PayQuoteResponse {
  @ApiProperty({ type: QuoteResponse }) quote: QuoteResponse;
  @ApiProperty({ type: QuoteIntentOutcome }) intent: QuoteIntentOutcome;
}

/** The quote as the hosted payment page shows it: the quote fields plus whom it is addressed to. */
export class PublicQuote extends QuoteResponse {
  @ApiProperty({ description: "The addressed buyer agent's name (whom the page says it is for)" })
  buyer_name: string;
}

/** What the hosted payment page shows for a quote (spec §2 "Public quote view"); no credential. */
export class PublicQuoteView {
  @ApiProperty({ type: PublicQuote }) quote: PublicQuote;
  @ApiProperty({ enum: ['sandbox', 'gateway'] }) rail: 'sandbox' | 'gateway';
  @ApiProperty({ enum: ['sandbox', 'test', 'live'] }) mode: 'sandbox' | 'test' | 'live';
  @ApiProperty() payable: boolean;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'When payable is false: why, in words for the buyer',
  })
  reason: string | null;
  @ApiProperty({ nullable: true, type: Object, description: 'null until a hosted checkout starts' })
  checkout: Record<string, unknown> | null;
}
