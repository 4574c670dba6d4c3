import type { RefundResponse } from './dto/refund.response';
import type { Refund } from './refund.entity';

export function toRefundResponse(r: Refund): RefundResponse {
  return {
    id: r.id,
    object: 'refund',
    intent_id: r.intentId,
    status: r.status,
    amount_paise: r.amountPaise,
    currency: r.currency,
    reason: r.reason,
    seller_agent_id: r.sellerAgentId,
    buyer_agent_id: r.buyerAgentId,
    approval_id: r.approvalId,
    rail_reference: r.railReference,
    failure_code: r.failureCode,
    failure_reason: r.failureReason,
    created_at: r.createdAt.toISOString(),
    decided_at: r.decidedAt?.toISOString() ?? null,
    succeeded_at: r.succeededAt?.toISOString() ?? null,
  };
}
