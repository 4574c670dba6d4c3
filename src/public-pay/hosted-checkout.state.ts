import type { QuoteStatus } from '../quotes/quote.state';
import type { HostedCheckout, HostedCheckoutStatus } from './hosted-checkout.entity';

/**
 * Hosted checkout states (spec §2 "Hosted checkout", §3 "Hosted checkout"). Every move happens
 * under the quote's row lock, then the checkout's (lock order: quote → hosted checkout → buyer
 * agent → intent, as PaymentsService documents for sources):
 *
 *   (none) ──start, quote payable and the buyer's rules allow it──────────────▶ created
 *   created ──start again──▶ created (the same checkout is returned; one live checkout per quote)
 *   created ──complete {outcome}──▶ processing  attempts + 1. On the sandbox rail the attempt ends
 *                                   in the same transaction, so processing is never seen from
 *                                   outside; with the gateway rail (planned) it waits here for
 *                                   the gateway's callback.
 *   processing ──outcome success, the pipeline settles──▶ paid  (intent settled, signed receipt,
 *                                   quote paid, intent.settled to the seller)
 *   processing ──outcome failure──▶ failed      (no intent, nothing debited)
 *   processing ──the buyer's rules refuse / the rail fails──▶ failed  (declined/failed intent)
 *   created ──expires_at passes (CHECKOUT_TTL_S, never after the quote's own expiry)──▶ expired
 *   created ──the quote stops being payable by another path (its agent paid it, the seller
 *             canceled it, it expired)──▶ expired
 *   processing ──✗ never expires: a payment in flight ends paid or failed.
 *   paid, failed, expired are final: paid never moves again; after failed or expired the person
 *   starts a new checkout (a new id). Live = created | processing.
 *
 * `expired` is derived on read from expires_at and the quote (like a quote's own expiry), and is
 * written when a start or complete meets it, so no sweeper is needed.
 *
 * A gateway payment link (channel `link`, docs/gateway.md "Payment links", payment-links.service.ts) is a
 * checkout with the same states: created by the seller's call (one live link per quote besides the
 * page's own checkout), expires_at = the quote's, created → processing → paid only when the
 * gateway reports its payment captured (PublicPayService.settleCaptured); a gateway refusal to
 * create the link writes created → expired (payment_link_refused).
 */
export const LIVE_STATUSES: readonly HostedCheckoutStatus[] = ['created', 'processing'];

/** A checkout lives 30 minutes at most, and never longer than its quote. */
export const CHECKOUT_TTL_S = 30 * 60;

export function checkoutExpiry(quoteExpiresAt: Date, now: Date): Date {
  return new Date(Math.min(quoteExpiresAt.getTime(), now.getTime() + CHECKOUT_TTL_S * 1000));
}

/** The status as of `now`: a created checkout whose time ran out or whose quote is settled otherwise is expired. */
export function effectiveCheckoutStatus(
  c: Pick<HostedCheckout, 'status' | 'expiresAt'>,
  quoteStatus: QuoteStatus,
  now: Date,
): HostedCheckoutStatus {
  if (c.status !== 'created') {
    return c.status;
  }
  const quoteGone =
    quoteStatus === 'paid' || quoteStatus === 'canceled' || quoteStatus === 'expired';
  return quoteGone || now.getTime() >= c.expiresAt.getTime() ? 'expired' : 'created';
}

export function isLive(status: HostedCheckoutStatus): boolean {
  return LIVE_STATUSES.includes(status);
}

/** Allowed stored moves, as data (the service only ever writes these). */
export const CHECKOUT_MOVES: Readonly<
  Record<HostedCheckoutStatus, readonly HostedCheckoutStatus[]>
> = {
  created: ['processing', 'expired'],
  processing: ['paid', 'failed'],
  paid: [],
  failed: [],
  expired: [],
};

export function assertMove(from: HostedCheckoutStatus, to: HostedCheckoutStatus): void {
  if (!CHECKOUT_MOVES[from].includes(to)) {
    throw new Error(`hosted checkout cannot move from ${from} to ${to}`);
  }
}
