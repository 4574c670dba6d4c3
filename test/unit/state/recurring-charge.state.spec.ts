import type { IntentStatus } from '../../../src/payments/entities/payment-intent.entity';
import type {
  ChargeAuthorisation,
  ChargeStatus,
} from '../../../src/recurring/recurring-charge.entity';
import {
  canMoveCharge,
  CHARGE_MOVES,
  cycleEnded,
  holdsCycle,
  initialChargeStatus,
  isCancellable,
  isDue,
  statusAfterIntent,
  statusAfterRefusal,
} from '../../../src/recurring/recurring-charge.state';

/** Recurring charge states (src/recurring/recurring-charge.state.ts, the diagram there). */

const ALL: readonly ChargeStatus[] = [
  'awaiting_authorisation',
  'scheduled',
  'processing',
  'settled',
  'failed',
  'declined',
  'cancelled',
  'expired',
];
const ALLOWED: ReadonlyArray<[ChargeStatus, ChargeStatus]> = [
  ['awaiting_authorisation', 'scheduled'],
  ['awaiting_authorisation', 'cancelled'],
  ['awaiting_authorisation', 'expired'],
  ['scheduled', 'processing'],
  ['scheduled', 'declined'],
  ['scheduled', 'cancelled'],
  ['scheduled', 'expired'],
  ['processing', 'settled'],
  ['processing', 'failed'],
  ['processing', 'declined'],
];
const allowed = (from: ChargeStatus, to: ChargeStatus) =>
  ALLOWED.some(([f, t]) => f === from && t === to);
const EVERY_PAIR = ALL.flatMap((from) => ALL.map((to) => [from, to] as const));

const T = new Date('2026-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(T.getTime() + ms);

describe('recurring charge state', () => {
  it('CHARGE_MOVES lists exactly the allowed moves', () => {
    const listed = ALL.flatMap((from) => CHARGE_MOVES[from].map((to) => [from, to]));
    expect(listed.sort()).toEqual([...ALLOWED].map((m) => [...m]).sort());
  });

  it.each(EVERY_PAIR.filter(([f, t]) => allowed(f, t)))('allows %s → %s', (from, to) => {
    expect(canMoveCharge(from, to)).toBe(true);
  });

  it.each(EVERY_PAIR.filter(([f, t]) => !allowed(f, t)))('refuses %s → %s', (from, to) => {
    expect(canMoveCharge(from, to)).toBe(false);
  });

  // status, cancellable, holds its billing cycle
  it.each<[ChargeStatus, boolean, boolean]>([
    ['awaiting_authorisation', true, true],
    ['scheduled', true, true],
    ['processing', false, true],
    ['settled', false, true],
    ['failed', false, false],
    ['declined', false, false],
    ['cancelled', false, false],
    ['expired', false, false],
  ])('%s: cancellable %s, holds its cycle %s', (status, cancellable, holding) => {
    expect(isCancellable(status)).toBe(cancellable);
    expect(holdsCycle(status)).toBe(holding);
  });

  it.each<[ChargeAuthorisation, ChargeStatus]>([
    ['none', 'scheduled'],
    ['approval', 'awaiting_authorisation'],
    ['upi_afa', 'awaiting_authorisation'],
    ['with_registration', 'awaiting_authorisation'],
  ])('a charge needing %s starts %s', (authorisation, status) => {
    expect(initialChargeStatus(authorisation)).toBe(status);
  });

  describe('isDue at debit_at', () => {
    it.each<[ChargeStatus, number, boolean]>([
      ['scheduled', -1, false],
      ['scheduled', 0, true],
      ['scheduled', 1, true],
      ['awaiting_authorisation', 1, false],
      ['processing', 1, false],
      ['cancelled', 1, false],
    ])('%s at debit_at %+d ms: due %s', (status, offset, due) => {
      expect(isDue({ status, debitAt: T }, at(offset))).toBe(due);
    });
  });

  it.each<[number, boolean]>([
    [-1, false],
    [0, true],
    [1, true],
  ])('at cycle_end %+d ms the cycle has ended: %s', (offset, ended) => {
    expect(cycleEnded({ cycleEnd: T }, at(offset))).toBe(ended);
  });

  it.each<['denied' | 'expired', ChargeStatus]>([
    ['denied', 'cancelled'],
    ['expired', 'expired'],
  ])('an awaiting charge whose approval is %s ends %s', (decision, status) => {
    expect(statusAfterRefusal(decision)).toBe(status);
    expect(canMoveCharge('awaiting_authorisation', status)).toBe(true);
  });

  it.each<[IntentStatus, ChargeStatus]>([
    ['settled', 'settled'],
    ['failed', 'failed'],
    ['declined', 'declined'],
  ])('a processing charge whose intent is %s ends %s', (intentStatus, status) => {
    expect(statusAfterIntent(intentStatus)).toBe(status);
    expect(canMoveCharge('processing', status)).toBe(true);
  });
});
