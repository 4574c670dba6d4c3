import type { Quote, StoredQuoteStatus } from './quote.entity';

/**
 * Quote statuses (docs/seller-surface.md "Seller surface", quote statuses):
 *   open ──pay, at or below ₹2,000, rules pass──▶ processing (committed; the rail is called after)
 *                                 processing ──the rail settles──▶ paid
 *                                 processing ──the rail fails──▶ open
 *   open ──pay, above ₹2,000──▶ pending_approval ──approved─▶ paid
 *                                 pending_approval ──denied / approval expired──▶ open
 *   open ──pay declined by the buyer's rules or the rail──▶ open (nothing changes)
 *   open ──expires_at passes──▶ expired (derived on read, never stored)
 *   open | pending_approval ──seller cancels──▶ canceled (a waiting payment is withdrawn)
 *   processing: a payment (by the buyer agent or on the hosted page) is on the rail; nothing else
 *   may start or cancel until it ends (the reconciler ends one its request left behind).
 * Expiry only stops a payment from starting: one already waiting for a person may still settle.
 */
export type QuoteStatus = StoredQuoteStatus | 'expired';

/** Quotes made from a published offer are valid 15 minutes (docs/seller-surface.md "Seller surface"). */
export const OFFER_QUOTE_TTL_SECONDS = 15 * 60;
/** Free-form quotes: default and bounds of expires_in_seconds. */
export const FREE_FORM_QUOTE_TTL = { default: 15 * 60, min: 60, max: 24 * 3600 } as const;

export function effectiveStatus(q: Pick<Quote, 'status' | 'expiresAt'>, now: Date): QuoteStatus {
  return q.status === 'open' && now.getTime() >= q.expiresAt.getTime() ? 'expired' : q.status;
}

export type NotPayableCode =
  | 'quote_expired'
  | 'quote_already_paid'
  | 'quote_canceled'
  | 'quote_pending_approval'
  | 'quote_payment_in_progress';

/** Why no payment may start for a quote in this status; null when one may. Reasons are for buyers. */
export function whyNotPayable(
  status: QuoteStatus,
): { code: NotPayableCode; reason: string } | null {
  switch (status) {
    case 'open':
      return null;
    case 'expired':
      return {
        code: 'quote_expired',
        reason: 'This quote has expired; ask the seller for a fresh one.',
      };
    case 'paid':
      return { code: 'quote_already_paid', reason: 'This quote has already been paid.' };
    case 'canceled':
      return { code: 'quote_canceled', reason: 'The seller canceled this quote.' };
    case 'processing':
      return {
        code: 'quote_payment_in_progress',
        reason: 'A payment for this quote is in progress; check again in a moment.',
      };
    case 'pending_approval':
      return {
        code: 'quote_pending_approval',
        reason: 'A payment for this quote is waiting for a person to approve it.',
      };
  }
}

/** Why the seller may not cancel; null when it may (open or pending_approval, not expired). */
export function whyNotCancelable(
  status: QuoteStatus,
): { code: NotPayableCode; reason: string } | null {
  return status === 'pending_approval' ? null : whyNotPayable(status);
}
