import type { StoredQuoteStatus } from '../../../src/quotes/quote.entity';
import {
  effectiveStatus,
  FREE_FORM_QUOTE_TTL,
  OFFER_QUOTE_TTL_SECONDS,
  type QuoteStatus,
  whyNotCancelable,
  whyNotPayable,
} from '../../../src/quotes/quote.state';

/** Quote statuses (src/quotes/quote.state.ts). */

const EXPIRES = new Date('2026-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(EXPIRES.getTime() + ms);

describe('quote state', () => {
  it('TTLs: 15 minutes from an offer; free-form 15 minutes by default, 1 minute to 24 hours', () => {
    expect(OFFER_QUOTE_TTL_SECONDS).toBe(900);
    expect(FREE_FORM_QUOTE_TTL).toEqual({ default: 900, min: 60, max: 86_400 });
  });

  describe('effectiveStatus at the expiry boundary', () => {
    it.each<[number, QuoteStatus]>([
      [-1, 'open'],
      [0, 'expired'],
      [1, 'expired'],
    ])('open at expires_at %+d ms reads %s', (offset, expected) => {
      expect(effectiveStatus({ status: 'open', expiresAt: EXPIRES }, at(offset))).toBe(expected);
    });

    it.each<StoredQuoteStatus>(['processing', 'pending_approval', 'paid', 'canceled'])(
      '%s is never derived expired (a waiting payment may still settle)',
      (status) => {
        expect(effectiveStatus({ status, expiresAt: EXPIRES }, at(86_400_000))).toBe(status);
      },
    );
  });

  // status, why no payment may start, why the seller may not cancel (null: it may)
  it.each<[QuoteStatus, string | null, string | null]>([
    ['open', null, null],
    ['expired', 'quote_expired', 'quote_expired'],
    ['paid', 'quote_already_paid', 'quote_already_paid'],
    ['canceled', 'quote_canceled', 'quote_canceled'],
    ['processing', 'quote_payment_in_progress', 'quote_payment_in_progress'],
    ['pending_approval', 'quote_pending_approval', null],
  ])('%s: pay refused with %s, cancel refused with %s', (status, pay, cancel) => {
    expect(whyNotPayable(status)?.code ?? null).toBe(pay);
    expect(whyNotCancelable(status)?.code ?? null).toBe(cancel);
  });

  it('every refusal has a reason for the buyer', () => {
    for (const s of ['expired', 'paid', 'canceled', 'processing', 'pending_approval'] as const) {
      expect(whyNotPayable(s)?.reason).toMatch(/\S/);
    }
  });
});
