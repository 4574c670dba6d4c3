import type { ApprovalStatus } from './approval.entity';
import type { ApprovalDecision, ApprovalWithdrawn } from './approvals.service';

/**
 * Approval states (docs/architecture.md "Approvals"), pure. ApprovalsService makes every move
 * under the approval's row lock, after the subject's own locks:
 *
 *   pending ──a person approves──▶ approved (or withdrawn: the handler finds the subject can no
 *             longer go ahead, and says why in the note)
 *   pending ──a person denies──▶ denied
 *   pending ──expires_at passes (the delayed job, the sweep, or a late answer)──▶ expired
 *   pending ──the subject went away (ApprovalsService.withdraw)──▶ withdrawn
 *   approved, denied, expired and withdrawn are final.
 *
 * An approval is past its expiry from expires_at on: an answer exactly at expires_at is too late.
 */
export const APPROVAL_MOVES: Readonly<Record<ApprovalStatus, readonly ApprovalStatus[]>> = {
  pending: ['approved', 'denied', 'expired', 'withdrawn'],
  approved: [],
  denied: [],
  expired: [],
  withdrawn: [],
};

/** Whether the table above allows a stored move. */
export function canMoveApproval(from: ApprovalStatus, to: ApprovalStatus): boolean {
  return APPROVAL_MOVES[from].includes(to);
}

/** Default expiry of a new approval: its TTL from now. */
export function defaultApprovalExpiry(now: Date, ttlSeconds: number): Date {
  return new Date(now.getTime() + ttlSeconds * 1000);
}

/** Whether expires_at has come: no person may answer any more, and it is due to expire. */
export function isPastExpiry(a: { expiresAt: Date }, now: Date): boolean {
  return a.expiresAt.getTime() <= now.getTime();
}

/** Delay of the expiry job: until expires_at, or none when it has passed. */
export function expiryDelayMs(expiresAt: Date, now: Date): number {
  return Math.max(0, expiresAt.getTime() - now.getTime());
}

/** The stored status after a decision: the decision, unless the handler withdrew the subject. */
export function statusAfterDecision(
  decision: ApprovalDecision,
  outcome: ApprovalWithdrawn | void,
): ApprovalStatus {
  return outcome ? 'withdrawn' : decision;
}
