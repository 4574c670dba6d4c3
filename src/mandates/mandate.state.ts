import type { Mandate, MandateStatus } from './mandate.entity';

/** Statuses that still change with time; `expired` is derived from valid_until for these. */
const TIME_BOUND: ReadonlySet<MandateStatus> = new Set(['pending_authorisation', 'active']);

/**
 * The status a caller sees: a pending or active mandate whose valid_until has passed is
 * `expired`, whether or not that has been written back yet (it is persisted when the mandate is
 * next touched: authorise, decline, revoke).
 */
export function effectiveMandateStatus(
  m: Pick<Mandate, 'status' | 'validUntil'>,
  now: Date,
): MandateStatus {
  return TIME_BOUND.has(m.status) && now.getTime() >= m.validUntil.getTime() ? 'expired' : m.status;
}

/** Stored status needs writing back as `expired`. */
export function expiryIsUnpersisted(m: Pick<Mandate, 'status' | 'validUntil'>, now: Date): boolean {
  return m.status !== 'expired' && effectiveMandateStatus(m, now) === 'expired';
}

/** Whether a person can still revoke (or decline) it: only live mandates. */
export function isRevocable(status: MandateStatus): boolean {
  return TIME_BOUND.has(status);
}
