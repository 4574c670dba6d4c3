import { formatRupees } from '../common/money';
import type { HostedCheckoutResponse, PublicPayView } from './dto/public-pay.response';

/** Local time on the pages: India Standard Time, whatever the server's zone. */
const IST = new Intl.DateTimeFormat('en-IN', {
  timeZone: 'Asia/Kolkata',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
  hour12: true,
});

export function formatIst(iso: string): string {
  return `${IST.format(new Date(iso))} IST`;
}

/** "Total: 3,500 rupees 00 paise": what a screen reader announces instead of "₹3,500.00". */
export function spokenRupees(paise: number): string {
  const [rupees, fraction] = formatRupees(paise).replace('₹', '').split('.');
  return `${rupees} rupees ${fraction} paise`;
}

interface PageBase {
  title: string;
  /** TEST MODE banner (mode test); the sandbox banner (mode sandbox); nothing in live. */
  testMode: boolean;
  sandboxMode: boolean;
  sellerName: string;
  buyerName: string;
  total: string;
  totalSpoken: string;
  /** Same-origin path of the payment page (form action, links): pages never point off-site. */
  pagePath: string;
}

export function pagePathOf(quoteId: string): string {
  return `/app/pay/${encodeURIComponent(quoteId)}`;
}

function statusPathOf(quoteId: string, checkoutId: string): string {
  return `${pagePathOf(quoteId)}/status?checkout=${encodeURIComponent(checkoutId)}`;
}

function base(view: PublicPayView, title: string): PageBase {
  return {
    title,
    testMode: view.mode === 'test',
    sandboxMode: view.mode === 'sandbox',
    sellerName: view.quote.seller_name,
    buyerName: view.quote.buyer_name,
    total: formatRupees(view.quote.amount_paise),
    totalSpoken: `Total: ${spokenRupees(view.quote.amount_paise)}`,
    pagePath: pagePathOf(view.quote.id),
  };
}

function itemsOf(view: PublicPayView) {
  return view.quote.line_items.map((li) => ({
    name: li.name,
    quantity: li.quantity,
    unit: formatRupees(li.unit_paise),
    amount: formatRupees(li.amount_paise),
  }));
}

/** Locals of views/pay/page.hbs. Templates format; the decisions are made here and in the service. */
export function payPage(view: PublicPayView) {
  const live =
    view.checkout && ['created', 'processing'].includes(view.checkout.status)
      ? view.checkout
      : null;
  const done = view.checkout && !live ? view.checkout : null;
  return {
    ...base(view, `Pay ${view.quote.seller_name}`),
    quoteId: view.quote.id,
    items: itemsOf(view),
    expiresLocal: formatIst(view.quote.expires_at),
    // A countdown only while the request can still be paid (never above "already paid").
    countdown: view.payable,
    expiresIso: view.quote.expires_at,
    payable: view.payable,
    reason: view.reason ?? '',
    sandboxRail: view.rail === 'sandbox',
    gatewayRail: view.rail === 'gateway',
    // Same-origin API paths the gateway panel's script calls (views/pay/assets/pay.js).
    startUrl: `/v1/public/pay/quotes/${encodeURIComponent(view.quote.id)}/checkout`,
    completeBase: `/v1/public/pay/quotes/${encodeURIComponent(view.quote.id)}/checkout/`,
    liveCheckoutId: live?.id ?? '',
    lastCheckout: done
      ? { id: done.id, status: done.status, statusUrl: statusPathOf(view.quote.id, done.id) }
      : null,
  };
}

/** How the person paid, in words (the receipt's "Method"). */
function methodOf(rail: string): string {
  return rail === 'gateway'
    ? 'UPI, through our payment gateway'
    : 'Sandbox payment (a test: no money moved)';
}

/** Locals of views/pay/status.hbs. */
export function statusPage(
  view: PublicPayView,
  checkout: HostedCheckoutResponse,
  opts: { download?: boolean } = {},
) {
  const pending = checkout.status === 'created' || checkout.status === 'processing';
  // A payment captured at the gateway that could not settle is refunded in full: said first.
  const refunds = checkout.refunds.map((r) => ({
    status: r.status,
    message: r.message,
    reference: r.payment_reference,
  }));
  return {
    ...base(
      view,
      pending
        ? 'Payment in progress'
        : checkout.status === 'paid'
          ? 'Payment received'
          : refunds.length > 0
            ? 'You were not charged'
            : 'Payment not completed',
    ),
    refunds,
    checkoutId: checkout.id,
    status: checkout.status,
    pending,
    paid: checkout.status === 'paid',
    failed: checkout.status === 'failed' || checkout.status === 'expired',
    paymentReference: checkout.payment_reference ?? '',
    // The receipt a person keeps (status paid): what was bought, when, how; ids under "Details".
    items: itemsOf(view),
    paidAt: checkout.completed_at ? formatIst(checkout.completed_at) : '',
    method: methodOf(checkout.rail),
    quoteId: view.quote.id,
    downloadPath: `${statusPathOf(view.quote.id, checkout.id)}&download=1`,
    download: opts.download === true,
    intentId: checkout.intent_id ?? '',
    receiptId: checkout.receipt_id ?? '',
    failureReason: checkout.failure_reason ?? '',
    canRetry: (checkout.status === 'failed' || checkout.status === 'expired') && view.payable,
    pollUrl: `/v1/public/pay/quotes/${encodeURIComponent(view.quote.id)}/checkout/${encodeURIComponent(checkout.id)}`,
  };
}
