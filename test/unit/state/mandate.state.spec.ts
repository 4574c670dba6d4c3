import type { MandateStatus } from '../../../src/mandates/mandate.entity';
import {
  effectiveMandateStatus,
  expiryIsUnpersisted,
  isRevocable,
} from '../../../src/mandates/mandate.state';

/** Mandate status rules (src/mandates/mandate.state.ts). */

const VALID_UNTIL = new Date('2026-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(VALID_UNTIL.getTime() + ms);
const m = (status: MandateStatus) => ({ status, validUntil: VALID_UNTIL });

describe('mandate state', () => {
  // status, offset from valid_until, effective status, expiry still to write back
  it.each<[MandateStatus, number, MandateStatus, boolean]>([
    ['pending_authorisation', -1, 'pending_authorisation', false],
    ['pending_authorisation', 0, 'expired', true],
    ['pending_authorisation', 1, 'expired', true],
    ['active', -1, 'active', false],
    ['active', 0, 'expired', true],
    ['active', 1, 'expired', true],
    ['revoked', -1, 'revoked', false],
    ['revoked', 1, 'revoked', false],
    ['expired', -1, 'expired', false],
    ['expired', 1, 'expired', false],
  ])('%s at valid_until %+d ms reads %s (write back: %s)', (status, offset, seen, unpersisted) => {
    expect(effectiveMandateStatus(m(status), at(offset))).toBe(seen);
    expect(expiryIsUnpersisted(m(status), at(offset))).toBe(unpersisted);
  });

  it.each<[MandateStatus, boolean]>([
    ['pending_authorisation', true],
    ['active', true],
    ['revoked', false],
    ['expired', false],
  ])('%s is revocable: %s', (status, revocable) => {
    expect(isRevocable(status)).toBe(revocable);
  });
});
