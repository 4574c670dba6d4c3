import type { PayOutcome } from '../payments/payments.service';
import { QuoteIntentOutcome, QuoteResponse } from './dto/quote.response';
import type { Quote } from './quote.entity';
import { effectiveStatus } from './quote.state';

export function toQuoteResponse(q: Quote, now: Date): QuoteResponse {
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
  };
}

export function toIntentOutcome(outcome: PayOutcome): QuoteIntentOutcome {
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
