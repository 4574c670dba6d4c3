import type { PaymentIntent } from '../payments/entities/payment-intent.entity';
import type { Refundability } from '../refunds/refund-limits';
import type { IntentResponse } from './dto/intent.response';
import type { IntentSide } from './dto/list-intents.query';

export function toIntentResponse(
  i: PaymentIntent,
  side: IntentSide,
  refundability: Refundability,
): IntentResponse {
  return {
    id: i.id,
    object: 'payment_intent',
    side,
    status: i.status,
    amount_paise: i.amountPaise,
    amount_refunded_paise: i.amountRefundedPaise,
    refundable_paise: refundability.refundablePaise,
    refund_minimum_paise: refundability.minimumPaise,
    refund_maximum_paise: refundability.maximumPaise,
    not_refundable_reason: refundability.notRefundableReason,
    currency: i.currency,
    buyer_agent_id: i.buyerAgentId,
    seller_agent_id: i.sellerAgentId,
    source: { kind: i.sourceKind, id: i.sourceId },
    description: i.description,
    mandate_id: i.mandateId,
    token_id: i.tokenId,
    decline_code: i.declineCode,
    decline_reason: i.declineReason,
    rail: i.rail,
    rail_reference: i.railReference,
    receipt_id: i.receiptId,
    created_at: i.createdAt.toISOString(),
    settled_at: i.settledAt?.toISOString() ?? null,
  };
}
