import type { ApprovalStatus } from '../../../src/approvals/approval.entity';
import {
  APPROVAL_MOVES,
  canMoveApproval,
  defaultApprovalExpiry,
  expiryDelayMs,
  isPastExpiry,
  statusAfterDecision,
} from '../../../src/approvals/approval.state';
import type { ApprovalDecision } from '../../../src/approvals/approvals.service';

/** Approval states (src/approvals/approval.state.ts, the diagram there). */

const ALL: readonly ApprovalStatus[] = ['pending', 'approved', 'denied', 'expired', 'withdrawn'];
const EVERY_PAIR = ALL.flatMap((from) => ALL.map((to) => [from, to] as const));
const allowed = (from: ApprovalStatus, to: ApprovalStatus) =>
  from === 'pending' && to !== 'pending';

const EXPIRES = new Date('2026-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(EXPIRES.getTime() + ms);

describe('approval state', () => {
  it('only a pending approval moves, to any final status', () => {
    expect([...APPROVAL_MOVES.pending].sort()).toEqual([
      'approved',
      'denied',
      'expired',
      'withdrawn',
    ]);
  });

  it.each(EVERY_PAIR.filter(([f, t]) => allowed(f, t)))('allows %s → %s', (from, to) => {
    expect(canMoveApproval(from, to)).toBe(true);
  });

  it.each(EVERY_PAIR.filter(([f, t]) => !allowed(f, t)))('refuses %s → %s', (from, to) => {
    expect(canMoveApproval(from, to)).toBe(false);
  });

  describe('expiry boundary', () => {
    it.each<[number, boolean, number]>([
      [-1000, false, 1000],
      [-1, false, 1],
      [0, true, 0],
      [1, true, 0],
      [60_000, true, 0],
    ])('at expires_at %+d ms: past %s, job delay %d ms', (offset, past, delay) => {
      expect(isPastExpiry({ expiresAt: EXPIRES }, at(offset))).toBe(past);
      expect(expiryDelayMs(EXPIRES, at(offset))).toBe(delay);
    });
  });

  it('a new approval expires its TTL from now', () => {
    const now = new Date('2026-03-01T09:00:00.000Z');
    expect(defaultApprovalExpiry(now, 900)).toEqual(new Date('2026-03-01T09:15:00.000Z'));
  });

  it.each<[ApprovalDecision, boolean, ApprovalStatus]>([
    ['approved', false, 'approved'],
    ['approved', true, 'withdrawn'],
    ['denied', false, 'denied'],
    ['expired', false, 'expired'],
  ])('decision %s, subject withdrawn by its handler %s: %s', (decision, withdrawn, status) => {
    const outcome = withdrawn ? { withdrawn: 'the mandate was revoked' } : undefined;
    expect(statusAfterDecision(decision, outcome)).toBe(status);
    expect(canMoveApproval('pending', status)).toBe(true);
  });
});
