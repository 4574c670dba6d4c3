import { Translator, translator } from '../common/i18n/catalogue';
import type {
  CaptureRefundResponse,
  HostedCheckoutResponse,
  PublicPayView,
} from './dto/public-pay.response';

/**
 * The hosted pay pages' words, in the page's language (docs/languages.md): every string a person
 * reads is composed here or in the templates from the `pay.*` catalogue; the API's English words
 * (reason, failure_reason, a refund's message) are not shown, their codes are said instead.
 */

/** "Total: 3,500 rupees 00 paise": what a screen reader announces instead of "₹3,500.00". */
export function spokenTotal(tr: Translator, paise: number): string {
  const [rupees, fraction] = tr.rupees(paise).replace('₹', '').split('.');
  return tr.t('pay.total_spoken', { rupees, paise: fraction });
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

function base(view: PublicPayView, title: string, tr: Translator): PageBase {
  return {
    title,
    testMode: view.mode === 'test',
    sandboxMode: view.mode === 'sandbox',
    sellerName: view.quote.seller_name,
    buyerName: view.quote.buyer_name,
    total: tr.rupees(view.quote.amount_paise),
    totalSpoken: spokenTotal(tr, view.quote.amount_paise),
    pagePath: pagePathOf(view.quote.id),
  };
}

function itemsOf(view: PublicPayView, tr: Translator) {
  return view.quote.line_items.map((li) => ({
    name: li.name,
    quantity: li.quantity,
    unit: tr.rupees(li.unit_paise),
    amount: tr.rupees(li.amount_paise),
  }));
}

/** Why the request cannot be paid, from the quote's status (the API's reason is English). */
function reasonOf(view: PublicPayView, tr: Translator): string {
  if (view.payable) {
    return '';
  }
  const known = ['expired', 'paid', 'canceled', 'processing', 'pending_approval'];
  return tr.t(
    `pay.page.reason.${known.includes(view.quote.status) ? view.quote.status : 'refused'}`,
  );
}

const CHECKOUT_STATUSES = ['created', 'processing', 'paid', 'failed', 'expired'];

/** Locals of views/pay/page.hbs. Templates format; the decisions are made here and in the service. */
export function payPage(view: PublicPayView, tr: Translator = translator('en')) {
  const live =
    view.checkout && ['created', 'processing'].includes(view.checkout.status)
      ? view.checkout
      : null;
  const done = view.checkout && !live ? view.checkout : null;
  return {
    ...base(view, tr.t('pay.page.title', { seller: view.quote.seller_name }), tr),
    quoteId: view.quote.id,
    items: itemsOf(view, tr),
    validUntil: tr.t('pay.page.valid_until', { time: tr.ist(view.quote.expires_at) }),
    // A countdown only while the request can still be paid (never above "already paid").
    countdown: view.payable,
    expiresIso: view.quote.expires_at,
    payable: view.payable,
    reason: reasonOf(view, tr),
    sandboxRail: view.rail === 'sandbox',
    gatewayRail: view.rail === 'gateway',
    // The gateway panel's script shows the API's own words only on an English page.
    apiWords: tr.lang === 'en',
    // Same-origin API paths the gateway panel's script calls (views/pay/assets/pay.js).
    startUrl: `/v1/public/pay/quotes/${encodeURIComponent(view.quote.id)}/checkout`,
    completeBase: `/v1/public/pay/quotes/${encodeURIComponent(view.quote.id)}/checkout/`,
    liveCheckoutId: live?.id ?? '',
    lastCheckout: done
      ? {
          id: done.id,
          status: tr.t('pay.page.last_attempt', {
            status: tr.t(
              `pay.checkout_status.${CHECKOUT_STATUSES.includes(done.status) ? done.status : 'failed'}`,
            ),
          }),
          statusUrl: statusPathOf(view.quote.id, done.id),
        }
      : null,
  };
}

/** How the person paid, in words (the receipt's "Method"). */
function methodOf(rail: string, tr: Translator): string {
  return tr.t(rail === 'gateway' ? 'pay.status.method_gateway' : 'pay.status.method_sandbox');
}

const REFUND_WHY = [
  'quote_already_paid',
  'quote_canceled',
  'quote_expired',
  'quote_payment_in_progress',
  'quote_pending_approval',
  'checkout_closed',
  'daily_cap_exceeded',
];

/** A captured payment refunded in full, said from its status, amount, reference and reason code. */
function refundWords(r: CaptureRefundResponse, tr: Translator): string {
  const why = tr.t(
    `pay.status.refund.why.${REFUND_WHY.includes(r.reason_code) ? r.reason_code : 'other'}`,
  );
  return tr.t(
    r.status === 'refunded' ? 'pay.status.refund.refunded' : 'pay.status.refund.refunding',
    {
      amount: tr.rupees(r.amount_paise),
      reference: r.payment_reference,
      why,
    },
  );
}

const BANK_DECLINES = ['insufficient_funds', 'mandate_declined_by_bank', 'bank_unavailable'];
const RULE_DECLINES = [
  'token_revoked',
  'mandate_not_active',
  'mandate_kind_mismatch',
  'mandate_expired',
  'mandate_cap_exceeded',
  'seller_not_allowed',
  'payment_refused',
];

/** Why an attempt failed or expired, from its failure code (failure_reason is the API's English). */
function failureWords(checkout: HostedCheckoutResponse, tr: Translator): string {
  const code = checkout.failure_code ?? '';
  const key =
    code === 'payment_failed' && checkout.rail === 'sandbox'
      ? 'simulated'
      : code === 'checkout_expired' || (checkout.status === 'expired' && code === '')
        ? 'checkout_expired'
        : code === 'daily_cap_exceeded'
          ? 'daily_cap_exceeded'
          : code === 'payment_link_refused'
            ? 'link_refused'
            : BANK_DECLINES.includes(code)
              ? 'bank'
              : RULE_DECLINES.includes(code)
                ? 'rules'
                : 'other';
  return tr.t(`pay.status.failure.${key}`);
}

/** Locals of views/pay/status.hbs. */
export function statusPage(
  view: PublicPayView,
  checkout: HostedCheckoutResponse,
  opts: { download?: boolean } = {},
  tr: Translator = translator('en'),
) {
  const pending = checkout.status === 'created' || checkout.status === 'processing';
  // A payment captured at the gateway that could not settle is refunded in full: said first.
  const refunds = checkout.refunds.map((r) => ({
    status: r.status,
    message: refundWords(r, tr),
    reference: r.payment_reference,
  }));
  const failed = checkout.status === 'failed' || checkout.status === 'expired';
  return {
    ...base(
      view,
      tr.t(
        pending
          ? 'pay.status.title.pending'
          : checkout.status === 'paid'
            ? 'pay.status.title.paid'
            : refunds.length > 0
              ? 'pay.status.title.refunded'
              : 'pay.status.title.failed',
      ),
      tr,
    ),
    refunds,
    checkoutId: checkout.id,
    status: checkout.status,
    pending,
    paid: checkout.status === 'paid',
    failed,
    paymentReference: checkout.payment_reference ?? '',
    // The receipt a person keeps (status paid): what was bought, when, how; ids under "Details".
    items: itemsOf(view, tr),
    paidAt: checkout.completed_at ? tr.ist(checkout.completed_at) : '',
    method: methodOf(checkout.rail, tr),
    quoteId: view.quote.id,
    downloadPath: `${statusPathOf(view.quote.id, checkout.id)}&download=1`,
    download: opts.download === true,
    intentId: checkout.intent_id ?? '',
    receiptId: checkout.receipt_id ?? '',
    failureReason: failed ? failureWords(checkout, tr) : '',
    canRetry: failed && view.payable,
    pollUrl: `/v1/public/pay/quotes/${encodeURIComponent(view.quote.id)}/checkout/${encodeURIComponent(checkout.id)}`,
  };
}
