import type { ApprovalDecision } from '../approvals/approvals.service';
import type { IntentStatus } from '../payments/entities/payment-intent.entity';
import {
  CANCELLABLE,
  type ChargeAuthorisation,
  type ChargeStatus,
  CYCLE_HOLDING,
  type RecurringCharge,
} from './recurring-charge.entity';

/**
 * Recurring charge states (docs/recurring.md "Recurring payments (UPI AutoPay)"), pure. Every
 * move is made by RecurringChargesService under the charge's row lock:
 *
 *   (none) ──schedule, nothing for the person to do──▶ scheduled
 *   (none) ──schedule, approval / UPI AFA / with the registration──▶ awaiting_authorisation
 *   awaiting_authorisation ──approved (or the mandate authorised, with_registration)──▶ scheduled
 *   awaiting_authorisation ──denied──▶ cancelled;  ──approval expired──▶ expired
 *   scheduled ──debit_at comes, the pipeline takes it──▶ processing
 *   scheduled ──debit_at comes, the buyer's rules decline──▶ declined
 *   processing ──the intent settles──▶ settled;  ──fails──▶ failed;  ──is declined──▶ declined
 *   awaiting_authorisation | scheduled ──cancel / opt out / the mandate ended──▶ cancelled
 *   awaiting_authorisation | scheduled ──the billing cycle ends first──▶ expired
 *   settled, failed, declined, cancelled and expired are final.
 */
export const CHARGE_MOVES: Readonly<Record<ChargeStatus, readonly ChargeStatus[]>> = {
  awaiting_authorisation: ['scheduled', 'cancelled', 'expired'],
  scheduled: ['processing', 'declined', 'cancelled', 'expired'],
  processing: ['settled', 'failed', 'declined'],
  settled: [],
  failed: [],
  declined: [],
  cancelled: [],
  expired: [],
};

/** Whether the table above allows a stored move. */
export function canMoveCharge(from: ChargeStatus, to: ChargeStatus): boolean {
  return CHARGE_MOVES[from].includes(to);
}

/** Where a newly scheduled charge starts: only one needing nothing from the person is scheduled. */
export function initialChargeStatus(authorisation: ChargeAuthorisation): ChargeStatus {
  return authorisation === 'none' ? 'scheduled' : 'awaiting_authorisation';
}

/** A buyer, person or seller may still cancel it (and the sweep still looks at it). */
export function isCancellable(status: ChargeStatus): boolean {
  return CANCELLABLE.includes(status);
}

/** It holds its billing cycle (the unique index on mandate + cycle). */
export function holdsCycle(status: ChargeStatus): boolean {
  return CYCLE_HOLDING.includes(status);
}

/** The billing cycle has ended by `at` (exactly at cycle_end it has). */
export function cycleEnded(c: Pick<RecurringCharge, 'cycleEnd'>, at: Date): boolean {
  return at.getTime() >= c.cycleEnd.getTime();
}

/** A scheduled charge whose debit_at has come (exactly at debit_at it has) is debited now. */
export function isDue(c: Pick<RecurringCharge, 'status' | 'debitAt'>, now: Date): boolean {
  return c.status === 'scheduled' && now.getTime() >= c.debitAt.getTime();
}

/** Where the person's refusal (or the approval's expiry) leaves an awaiting charge. */
export function statusAfterRefusal(
  decision: Exclude<ApprovalDecision, 'approved'>,
): 'cancelled' | 'expired' {
  return decision === 'denied' ? 'cancelled' : 'expired';
}

/** Where the outcome of the charge's intent leaves a processing charge. */
export function statusAfterIntent(intentStatus: IntentStatus): 'settled' | 'failed' | 'declined' {
  if (intentStatus === 'settled') {
    return 'settled';
  }
  return intentStatus === 'failed' ? 'failed' : 'declined';
}
