import type { ApprovalDecision } from '../approvals/approvals.service';
import type { RefundStatus } from './refund.entity';

/**
 * Refund states (docs/seller-surface.md "Seller surface", refund statuses):
 *   pending_approval ──person approves──▶ processing (committed with the decision)
 *   processing ──rail credit succeeds (the request, a gateway webhook or the reconciler)──▶ succeeded
 *   processing ──rail credit fails────────────────────────────────────────────────────────▶ failed
 *   pending_approval ──person denies──────────────────────────▶ denied
 *   pending_approval ──nobody answers before the approval TTL─▶ expired
 * The credit is never called inside the decision's transaction: `processing` is committed first,
 * then the rail is asked; on the sandbox rail it ends within the same request.
 * No agent, API key or protocol key can approve: only a person in the seller's workspace, in the app.
 */
export const REFUND_FINAL: readonly RefundStatus[] = ['succeeded', 'denied', 'expired', 'failed'];

/** Statuses whose amount counts against what is left to refund (reserved or paid out). */
export const REFUND_COMMITTED: readonly RefundStatus[] = [
  'pending_approval',
  'processing',
  'succeeded',
];

/** Where a person's non-approving answer leaves a pending refund. */
export function statusAfterRefusal(decision: Exclude<ApprovalDecision, 'approved'>): RefundStatus {
  return decision === 'denied' ? 'denied' : 'expired';
}
