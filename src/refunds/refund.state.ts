import type { ApprovalDecision } from '../approvals/approvals.service';
import type { RefundStatus } from './refund.entity';

/**
 * Refund states (README "Refunds"):
 *   pending_approval ──person approves, rail credit succeeds──▶ succeeded
 *   pending_approval ──person approves, rail credit fails─────▶ failed
 *   pending_approval ──person denies──────────────────────────▶ denied
 *   pending_approval ──nobody answers before the approval TTL─▶ expired
 * Approval and credit happen in one transaction, so there is no stored "approved" state.
 * No agent, API key or protocol key can approve: only a person in the seller's workspace, in the app.
 */
export const REFUND_FINAL: readonly RefundStatus[] = ['succeeded', 'denied', 'expired', 'failed'];

/** Statuses whose amount counts against what is left to refund (reserved or paid out). */
export const REFUND_COMMITTED: readonly RefundStatus[] = ['pending_approval', 'succeeded'];

/** Where a person's non-approving answer leaves a pending refund. */
export function statusAfterRefusal(decision: Exclude<ApprovalDecision, 'approved'>): RefundStatus {
  return decision === 'denied' ? 'denied' : 'expired';
}
