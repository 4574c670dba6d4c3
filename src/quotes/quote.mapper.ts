import type { PaymentIntent } from '../payments/entities/payment-intent.entity';
import type { PaymentStarted } from '../payments/payments.service';
import { PublicQuoteView, QuoteIntentOutcome, QuoteResponse } from './dto/quote.response';
import type { Quote } from './quote.entity';
import { effectiveStatus, whyNotPayable } from './quote.state';

/** `{app_url}/pay/<quote_id>`: the hosted payment page of a quote (spec §4 "Public pay API"). */
export function payUrlOf(appUrl: string, quoteId: string): string {
  return `${appUrl.replace(/\/+$/, '')}/pay/${encodeURIComponent(quoteId)}`;
}

export function toQuoteResponse(q: Quote, now: Date, appUrl: string): QuoteResponse {
  return {
    id: q.id,
    object: 'quote',
    status: effectiveStatus(q, now),
    origin: q.origin,
    seller_agent_id: q.sellerAgentId,
    seller_name: q.sellerName,
    buyer_agent_id: q.buyerAgentId,
    category: q.category,
    amount_paise: q.amountPaise,
    currency: 'INR',
    line_items: q.lineItems.map((li) => ({
      name: li.name,
      quantity: li.quantity,
      unit_paise: li.unit_paise,
      amount_paise: li.amount_paise,
      ...(li.sku !== undefined ? { sku: li.sku } : {}),
    })),
    expires_at: q.expiresAt.toISOString(),
    created_at: q.createdAt.toISOString(),
    intent_id: q.intentId,
    paid_at: q.paidAt?.toISOString() ?? null,
    canceled_at: q.canceledAt?.toISOString() ?? null,
    pay_url: payUrlOf(appUrl, q.id),
  };
}

/** The outcome as the intent now stands (read again after the payment's second phase). */
export function toIntentOutcomeOf(intent: PaymentIntent): QuoteIntentOutcome {
  return {
    id: intent.id,
    status: intent.status,
    amount_paise: intent.amountPaise,
    decline_code: intent.declineCode,
    decline_reason: intent.declineReason,
    receipt_id: intent.receiptId,
    approval_id: null,
  };
}

export function toIntentOutcome(outcome: PaymentStarted): QuoteIntentOutcome {
  const { intent } = outcome;
  return {
    id: intent.id,
    status: outcome.status,
    amount_paise: intent.amountPaise,
    decline_code: intent.declineCode,
    decline_reason: intent.declineReason,
    receipt_id: intent.receiptId,
    approval_id: outcome.status === 'requires_approval' ? outcome.approval.id : null,
  };
}

/**
 * The quote's part of the public view (spec §2 "Public quote view"): payable as far as the quote's
 * own status goes. The hosted payment page (src/public-pay) adds the buyer's rules and its checkout.
 */
export function toPublicQuoteView(
  q: Quote,
  now: Date,
  ctx: {
    buyerName: string;
    rail: 'sandbox' | 'gateway';
    mode: 'sandbox' | 'test' | 'live';
    appUrl: string;
  },
): PublicQuoteView {
  const blocked = whyNotPayable(effectiveStatus(q, now));
  return {
    quote: { ...toQuoteResponse(q, now, ctx.appUrl), buyer_name: ctx.buyerName },
    rail: ctx.rail,
    mode: ctx.mode,
    payable: blocked === null,
    reason: blocked?.reason ?? null,
    checkout: null,
  };
}
