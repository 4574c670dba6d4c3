import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { SimReply } from './http';

/**
 * The simulator's browser side: the widget script, the pages' script and stylesheet (files in
 * ./assets, read once) and the HTML of its three pages. Every value put into HTML is escaped.
 */
const ASSETS = join(__dirname, 'assets');
const files = new Map<string, string>();

function asset(name: string): string {
  let text = files.get(name);
  if (text === undefined) {
    text = readFileSync(join(ASSETS, name), 'utf8');
    files.set(name, text);
  }
  return text;
}

export function checkoutScript(): SimReply {
  return {
    status: 200,
    text: asset('checkout.js'),
    type: 'application/javascript; charset=utf-8',
    headers: { 'cross-origin-resource-policy': 'cross-origin' },
  };
}

export function pagesScript(): SimReply {
  return { status: 200, text: asset('pages.js'), type: 'application/javascript; charset=utf-8' };
}

export function pagesStylesheet(): SimReply {
  return { status: 200, text: asset('pages.css'), type: 'text/css; charset=utf-8' };
}

export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** ₹ with two decimals from integer paise, for display only. */
export function rupees(paise: number): string {
  const whole = Math.floor(paise / 100).toLocaleString('en-IN');
  return `₹${whole}.${String(paise % 100).padStart(2, '0')}`;
}

interface PageInput {
  title: string;
  /** Attributes on <body>, read by pages.js (`data-page`, ids). */
  data: Record<string, string>;
  /** Trusted HTML built by the callers below from escaped values. */
  main: string;
  /** The checkout page lives in the merchant's iframe; the others may not be framed. */
  frameable: boolean;
}

function page(input: PageInput, status = 200): SimReply {
  const attrs = Object.entries(input.data)
    .map(([k, v]) => ` data-${k}="${escapeHtml(v)}"`)
    .join('');
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    "img-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${input.frameable ? '*' : "'none'"}`,
  ].join('; ');
  return {
    status,
    type: 'text/html; charset=utf-8',
    headers: { 'content-security-policy': csp, 'referrer-policy': 'no-referrer' },
    text: `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(input.title)}</title>
<link rel="stylesheet" href="/assets/pages.css">
</head>
<body${attrs}>
<main>
<span class="badge">Gateway simulator · test mode</span>
${input.main}
</main>
<script src="/assets/pages.js"></script>
</body>
</html>
`,
  };
}

function vpaField(value: string): string {
  return `<label for="vpa">UPI id (VPA)</label>
<input id="vpa" name="vpa" autocomplete="off" value="${escapeHtml(value)}">
<p class="muted">success@gateway pays, failure@gateway fails, hang@gateway hangs.</p>`;
}

function buttons(primary: [string, string], secondary: [string, string]): string {
  return `<div class="actions">
<button type="button" data-action="${primary[0]}" data-kind="primary">${primary[1]}</button>
<button type="button" data-action="${secondary[0]}" data-kind="secondary">${secondary[1]}</button>
</div>
<p id="status" role="status" aria-live="polite"></p>`;
}

export function errorPage(message: string, status = 400): SimReply {
  return page(
    {
      title: 'Cannot continue',
      data: { page: 'error' },
      main: `<h1>Cannot continue</h1><p class="muted">${escapeHtml(message)}</p>`,
      frameable: true,
    },
    status,
  );
}

export function checkoutPage(input: {
  keyId: string;
  orderId: string;
  amount: number;
  receipt: string;
  parentOrigin: string;
  name: string;
  description: string;
}): SimReply {
  return page({
    title: `Pay ${rupees(input.amount)}`,
    data: {
      page: 'checkout',
      'key-id': input.keyId,
      'order-id': input.orderId,
      'parent-origin': input.parentOrigin,
    },
    frameable: true,
    main: `<h1>${escapeHtml(input.name || 'Payment')}</h1>
${input.description ? `<p class="muted">${escapeHtml(input.description)}</p>` : ''}
<p class="amount">${rupees(input.amount)}</p>
<dl><dt>Order</dt><dd>${escapeHtml(input.orderId)}</dd><dt>Receipt</dt><dd>${escapeHtml(input.receipt)}</dd></dl>
${vpaField('success@gateway')}
${buttons(['pay', 'Pay'], ['fail', 'Fail'])}`,
  });
}

export function authorizePage(input: {
  target: string;
  heading: string;
  rows: [string, string][];
  vpa: string;
}): SimReply {
  return page({
    title: input.heading,
    data: { page: 'authorize', target: input.target },
    frameable: false,
    main: `<h1>${escapeHtml(input.heading)}</h1>
<dl>${input.rows.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>
${vpaField(input.vpa)}
${buttons(['approve', 'Approve'], ['reject', 'Reject'])}`,
  });
}

export function linkPage(input: {
  linkId: string;
  amount: number;
  description: string;
  referenceId: string;
  status: string;
}): SimReply {
  const payable = input.status === 'created';
  return page({
    title: `Pay ${rupees(input.amount)}`,
    data: { page: 'link', 'link-id': input.linkId },
    frameable: false,
    main: `<h1>${escapeHtml(input.description)}</h1>
<p class="amount">${rupees(input.amount)}</p>
<dl><dt>Reference</dt><dd>${escapeHtml(input.referenceId)}</dd><dt>Status</dt><dd>${escapeHtml(input.status)}</dd></dl>
${payable ? `${vpaField('success@gateway')}\n${buttons(['pay', 'Pay'], ['fail', 'Fail'])}` : `<p class="muted">This link is ${escapeHtml(input.status)} and cannot be paid.</p>`}`,
  });
}
