import type { CheckoutStatus } from '../../../src/checkout/checkout-session.entity';
import {
  canCancel,
  canComplete,
  canUpdate,
  effectiveStatus,
  isOpen,
  OPEN_STATUSES,
} from '../../../src/checkout/checkout-session.state';

/** Checkout session rules (docs/architecture.md "State machines", Checkout session). */

const EXPIRES = new Date('2026-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(EXPIRES.getTime() + ms);

const ALL: readonly CheckoutStatus[] = [
  'not_ready_for_payment',
  'ready_for_payment',
  'pending_approval',
  'complete_in_progress',
  'completed',
  'canceled',
  'expired',
];

describe('checkout session state', () => {
  it('open means ready or not ready for payment', () => {
    expect([...OPEN_STATUSES].sort()).toEqual(['not_ready_for_payment', 'ready_for_payment']);
  });

  // status, open, update, complete, cancel
  it.each<[CheckoutStatus, boolean, boolean, boolean, boolean]>([
    ['not_ready_for_payment', true, true, false, true],
    ['ready_for_payment', true, true, true, true],
    ['pending_approval', false, false, false, true],
    ['complete_in_progress', false, false, false, false],
    ['completed', false, false, false, false],
    ['canceled', false, false, false, false],
    ['expired', false, false, false, true],
  ])('%s: open %s, update %s, complete %s, cancel %s', (status, open, update, complete, cancel) => {
    expect(isOpen(status)).toBe(open);
    expect(canUpdate(status)).toBe(update);
    expect(canComplete(status)).toBe(complete);
    expect(canCancel(status)).toBe(cancel);
  });

  it('the table covers every status', () => {
    expect(ALL).toHaveLength(7);
  });

  describe('effectiveStatus at the expiry boundary', () => {
    it.each<[CheckoutStatus, number, CheckoutStatus]>([
      ['ready_for_payment', -1, 'ready_for_payment'],
      ['ready_for_payment', 0, 'expired'],
      ['ready_for_payment', 1, 'expired'],
      ['not_ready_for_payment', -1, 'not_ready_for_payment'],
      ['not_ready_for_payment', 0, 'expired'],
    ])('%s at expires_at %+d ms reads %s', (status, offset, expected) => {
      expect(effectiveStatus({ status, expiresAt: EXPIRES }, at(offset))).toBe(expected);
    });

    it.each(ALL.filter((s) => !OPEN_STATUSES.includes(s)))(
      '%s is never derived expired, even long past expires_at',
      (status) => {
        expect(effectiveStatus({ status, expiresAt: EXPIRES }, at(86_400_000))).toBe(status);
      },
    );
  });
});
