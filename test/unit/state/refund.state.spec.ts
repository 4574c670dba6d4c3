import type { RefundStatus } from '../../../src/refunds/refund.entity';
import {
  REFUND_COMMITTED,
  REFUND_FINAL,
  statusAfterRefusal,
} from '../../../src/refunds/refund.state';

/** Refund states (src/refunds/refund.state.ts). */

describe('refund state', () => {
  // status, final, counts against what is left to refund
  it.each<[RefundStatus, boolean, boolean]>([
    ['pending_approval', false, true],
    ['processing', false, true],
    ['succeeded', true, true],
    ['denied', true, false],
    ['expired', true, false],
    ['failed', true, false],
  ])('%s: final %s, committed %s', (status, final, committed) => {
    expect(REFUND_FINAL.includes(status)).toBe(final);
    expect(REFUND_COMMITTED.includes(status)).toBe(committed);
  });

  it.each<['denied' | 'expired', RefundStatus]>([
    ['denied', 'denied'],
    ['expired', 'expired'],
  ])('a pending refund the person %s ends %s', (decision, status) => {
    expect(statusAfterRefusal(decision)).toBe(status);
    expect(REFUND_FINAL).toContain(status);
  });
});
