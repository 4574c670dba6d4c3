import type { HostedCheckoutStatus } from '../../../src/public-pay/hosted-checkout.entity';
import {
  assertMove,
  CHECKOUT_MOVES,
  CHECKOUT_TTL_S,
  checkoutExpiry,
  effectiveCheckoutStatus,
  isLive,
} from '../../../src/public-pay/hosted-checkout.state';
import type { QuoteStatus } from '../../../src/quotes/quote.state';

/** Hosted checkout rules (src/public-pay/hosted-checkout.state.ts, the diagram there). */

const ALL: readonly HostedCheckoutStatus[] = ['created', 'processing', 'paid', 'failed', 'expired'];
const ALLOWED: ReadonlyArray<[HostedCheckoutStatus, HostedCheckoutStatus]> = [
  ['created', 'processing'],
  ['created', 'expired'],
  ['processing', 'paid'],
  ['processing', 'failed'],
];
const allowed = (from: HostedCheckoutStatus, to: HostedCheckoutStatus) =>
  ALLOWED.some(([f, t]) => f === from && t === to);
const EVERY_PAIR = ALL.flatMap((from) => ALL.map((to) => [from, to] as const));

const EXPIRES = new Date('2026-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(EXPIRES.getTime() + ms);

describe('hosted checkout state', () => {
  it('CHECKOUT_MOVES lists exactly the allowed moves', () => {
    const listed = ALL.flatMap((from) => CHECKOUT_MOVES[from].map((to) => [from, to]));
    expect(listed.sort()).toEqual([...ALLOWED].map((m) => [...m]).sort());
  });

  it.each(EVERY_PAIR.filter(([f, t]) => allowed(f, t)))('allows %s → %s', (from, to) => {
    expect(() => assertMove(from, to)).not.toThrow();
  });

  it.each(EVERY_PAIR.filter(([f, t]) => !allowed(f, t)))('refuses %s → %s', (from, to) => {
    expect(() => assertMove(from, to)).toThrow(`hosted checkout cannot move from ${from} to ${to}`);
  });

  it.each<[HostedCheckoutStatus, boolean]>([
    ['created', true],
    ['processing', true],
    ['paid', false],
    ['failed', false],
    ['expired', false],
  ])('%s is live: %s', (status, live) => {
    expect(isLive(status)).toBe(live);
  });

  describe('checkoutExpiry', () => {
    const now = new Date('2026-03-01T09:00:00.000Z');
    const ttl = CHECKOUT_TTL_S * 1000;

    it('is 30 minutes from now when the quote lives longer', () => {
      expect(CHECKOUT_TTL_S).toBe(1800);
      const quoteEnds = new Date(now.getTime() + ttl + 1);
      expect(checkoutExpiry(quoteEnds, now)).toEqual(new Date(now.getTime() + ttl));
    });

    it('is the quote expiry when the quote ends first, or at the same instant', () => {
      const sameInstant = new Date(now.getTime() + ttl);
      expect(checkoutExpiry(sameInstant, now)).toEqual(sameInstant);
      const sooner = new Date(now.getTime() + 60_000);
      expect(checkoutExpiry(sooner, now)).toEqual(sooner);
    });
  });

  describe('effectiveCheckoutStatus', () => {
    it.each<[number, HostedCheckoutStatus]>([
      [-1, 'created'],
      [0, 'expired'],
      [1, 'expired'],
    ])('created, open quote, at expires_at %+d ms: %s', (offset, expected) => {
      expect(
        effectiveCheckoutStatus({ status: 'created', expiresAt: EXPIRES }, 'open', at(offset)),
      ).toBe(expected);
    });

    it.each<[QuoteStatus, HostedCheckoutStatus]>([
      ['open', 'created'],
      ['processing', 'created'],
      ['pending_approval', 'created'],
      ['paid', 'expired'],
      ['canceled', 'expired'],
      ['expired', 'expired'],
    ])('created, before expires_at, quote %s: %s', (quoteStatus, expected) => {
      expect(
        effectiveCheckoutStatus({ status: 'created', expiresAt: EXPIRES }, quoteStatus, at(-1)),
      ).toBe(expected);
    });

    it.each(ALL.filter((s) => s !== 'created'))(
      '%s is read as stored, past expires_at and whatever the quote',
      (status) => {
        for (const quoteStatus of ['open', 'paid', 'canceled', 'expired'] as const) {
          expect(
            effectiveCheckoutStatus({ status, expiresAt: EXPIRES }, quoteStatus, at(86_400_000)),
          ).toBe(status);
        }
      },
    );
  });
});
