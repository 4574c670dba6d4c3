import type { CheckoutStatus } from './checkout-session.entity';

/**
 * Session status rules (docs/acp.md §4–§5; docs/architecture.md "State machines"), pure. `expired`
 * is derived: an open session past expires_at reads as expired whether or not a write has persisted
 * it yet.
 */
export const OPEN_STATUSES: readonly CheckoutStatus[] = [
  'ready_for_payment',
  'not_ready_for_payment',
];

export function isOpen(status: CheckoutStatus): boolean {
  return OPEN_STATUSES.includes(status);
}

export function effectiveStatus(
  s: { status: CheckoutStatus; expiresAt: Date },
  now: Date,
): CheckoutStatus {
  return isOpen(s.status) && now >= s.expiresAt ? 'expired' : s.status;
}

/** Line items, buyer and fulfilment selection change only while the session is open. */
export function canUpdate(status: CheckoutStatus): boolean {
  return isOpen(status);
}

/** Only a payable session completes; not_ready has a blocking MessageError, pending_approval a payment already. */
export function canComplete(status: CheckoutStatus): boolean {
  return status === 'ready_for_payment';
}

/**
 * Anything but completed and canceled cancels (an expired session too); those two answer 405. So
 * does complete_in_progress: its payment is on the rail and will end completed or payable again.
 */
export function canCancel(status: CheckoutStatus): boolean {
  return status !== 'completed' && status !== 'canceled' && status !== 'complete_in_progress';
}
