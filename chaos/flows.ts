/**
 * The chaos run's clients (docs/testing.md "Chaos run"): each flow is one payment as an agent, a
 * person's browser or a gateway page would make it, over HTTP through a RetryingClient, ending in
 * a FlowOutcome (what the client was told in the end) the invariants compare with the database.
 */
import { paymentSignature } from '../src/rails/gateway/gateway-signatures';
import type { Answer, RetryingClient } from './client';
import type { FlowOutcome } from './invariants';
import type { Rng } from './rng';

export const API_VERSION = '2026-04-17';

export interface Sandbox {
  seller: { agent_id: string; credential: string };
  buyer: { agent_id: string; credential: string };
  merchant_protocol_key: string;
  buyer_protocol_key: string;
  mandate_id: string;
  offers: { sku: string; unit_paise: number }[];
  person: { email: string; password: string };
  webhook?: { secret: string };
}

export interface FlowContext {
  app: RetryingClient;
  /** The simulator (gateway rail only): pays orders and links as a payer would. */
  sim: RetryingClient | null;
  sb: Sandbox;
  rail: 'sandbox' | 'gateway';
  rng: Rng;
  gatewayKeyId: string;
  gatewayKeySecret: string;
  /** The app's base URL (the person's approval pages). */
  appUrl: string;
  /** The person's session cookie (approves refunds), refreshed by the caller. */
  personCookie: () => Promise<string>;
}

export interface FlowResult {
  outcome: FlowOutcome | null;
  /** A settled intent this flow made (for a refund flow later). */
  settledIntent: string | null;
}

const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` });
const acp = (key: string) => ({ ...bearer(key), 'api-version': API_VERSION });

function describe(a: Answer): string {
  if (a.gaveUp) {
    return `gave up (last ${a.status ?? 'no answer'}${a.code ? ` ${a.code}` : ''})`;
  }
  return `${a.status}${a.code ? ` ${a.code}` : ''}`;
}

/** An amount ≤ ₹2,000 (no person needed), now and then one the sandbox rail declines (…51). */
function amount(rng: Rng): number {
  const rupees = rng.int(100, 1900);
  return rng.chance(0.1) ? rupees * 100 + 51 : rupees * 100;
}

async function createQuote(ctx: FlowContext, flow: string, paise: number): Promise<string | null> {
  const res = await ctx.app.call(flow, 'quote', 'POST', '/v1/pay/quotes', {
    headers: bearer(ctx.sb.seller.credential),
    json: {
      buyer_agent_id: ctx.sb.buyer.agent_id,
      category: 'food.tea',
      items: [{ name: 'Chaos tea', unit_paise: paise }],
    },
  });
  return res.status === 201 && typeof res.body.id === 'string' ? res.body.id : null;
}

/** ACP: create a checkout session, delegate_payment, complete. */
export async function acpPurchase(ctx: FlowContext, n: number): Promise<FlowResult> {
  const flow = `acp#${n}`;
  const created = await ctx.app.call(flow, 'create', 'POST', '/acp/checkout_sessions', {
    headers: acp(ctx.sb.merchant_protocol_key),
    json: {
      line_items: [{ id: ctx.sb.offers[0].sku, quantity: ctx.rng.int(1, 3) }],
      currency: 'inr',
      capabilities: {},
    },
  });
  const sessionId = created.status === 201 ? (created.body.id as string) : null;
  if (!sessionId) {
    return { outcome: null, settledIntent: null };
  }
  const total = ctx.sb.offers[0].unit_paise * 3;
  const token = await ctx.app.call(
    flow,
    'delegate_payment',
    'POST',
    '/acp/agentic_commerce/delegate_payment',
    {
      headers: acp(ctx.sb.buyer_protocol_key),
      json: {
        payment_method: { type: 'svc_mandate', mandate_id: ctx.sb.mandate_id },
        allowance: {
          reason: 'one_time',
          max_amount: total,
          currency: 'inr',
          checkout_session_id: sessionId,
          merchant_id: ctx.sb.seller.agent_id,
          expires_at: new Date(Date.now() + 3600_000).toISOString(),
        },
        risk_signals: [],
        metadata: {},
      },
    },
  );
  const tokenId = token.status === 201 ? (token.body.id as string) : null;
  if (!tokenId) {
    return { outcome: null, settledIntent: null };
  }
  const done = await ctx.app.call(
    flow,
    'complete',
    'POST',
    `/acp/checkout_sessions/${sessionId}/complete`,
    {
      headers: acp(ctx.sb.merchant_protocol_key),
      json: {
        payment_data: {
          handler_id: 'svc_upi_mandate',
          instrument: {
            type: 'svc_mandate',
            credential: { type: 'svc_delegated_token', token: tokenId },
          },
        },
      },
    },
  );
  const status = done.body.status;
  const client: FlowOutcome['client'] = done.gaveUp
    ? 'gave_up'
    : done.status === 200 && status === 'completed'
      ? 'paid'
      : done.status === 200 && (status === 'complete_in_progress' || status === 'in_progress')
        ? 'pending'
        : 'not_paid';
  return {
    outcome: {
      flow,
      subject: sessionId,
      client,
      answer: `${describe(done)}${typeof status === 'string' ? ` ${status}` : ''}`,
    },
    settledIntent: null,
  };
}

/** A quote the buyer agent pays under its mandate (`POST /v1/pay/quotes/{id}/pay`). */
export async function quotePay(ctx: FlowContext, n: number): Promise<FlowResult> {
  const flow = `quote_pay#${n}`;
  const quoteId = await createQuote(ctx, flow, amount(ctx.rng));
  if (!quoteId) {
    return { outcome: null, settledIntent: null };
  }
  const res = await ctx.app.call(flow, 'pay', 'POST', `/v1/pay/quotes/${quoteId}/pay`, {
    headers: bearer(ctx.sb.buyer.credential),
    json: { mandate_id: ctx.sb.mandate_id },
  });
  const intent = (res.body.intent ?? {}) as { id?: string; status?: string };
  const client: FlowOutcome['client'] = res.gaveUp
    ? 'gave_up'
    : res.status !== 200
      ? 'not_paid'
      : intent.status === 'settled'
        ? 'paid'
        : intent.status === 'processing' || intent.status === 'requires_approval'
          ? 'pending'
          : 'not_paid';
  return {
    outcome: {
      flow,
      subject: quoteId,
      client,
      answer: `${describe(res)}${intent.status ? ` ${intent.status}` : ''}`,
    },
    settledIntent: client === 'paid' && intent.id ? intent.id : null,
  };
}

/** Pays a gateway order as the widget would; the three signed fields, or null. */
async function payOrderAtGateway(
  ctx: FlowContext,
  flow: string,
  orderId: string,
): Promise<Record<string, string> | null> {
  const sim = ctx.sim as RetryingClient;
  const paid = await sim.call(flow, 'widget', 'POST', '/__sim/payments', {
    json: { order_id: orderId },
    idempotencyKey: null,
  });
  if (paid.status === 200 && typeof paid.body.razorpay_payment_id === 'string') {
    return {
      gateway_payment_id: paid.body.razorpay_payment_id,
      gateway_order_id: orderId,
      gateway_signature: paid.body.razorpay_signature as string,
    };
  }
  // An earlier attempt may have paid it before its answer was lost: find the capture.
  const auth = `Basic ${Buffer.from(`${ctx.gatewayKeyId}:${ctx.gatewayKeySecret}`).toString('base64')}`;
  const list = await sim.call(flow, 'widget_lookup', 'GET', `/v1/orders/${orderId}/payments`, {
    headers: { authorization: auth },
  });
  const items = (list.body.items ?? []) as { id: string; status: string }[];
  const captured = items.find((p) => p.status === 'captured');
  return captured
    ? {
        gateway_payment_id: captured.id,
        gateway_order_id: orderId,
        gateway_signature: paymentSignature(orderId, captured.id, ctx.gatewayKeySecret),
      }
    : null;
}

/** A person pays a quote on the hosted page: start the checkout, pay (rail-specific), complete. */
export async function hostedPay(ctx: FlowContext, n: number): Promise<FlowResult> {
  const flow = `hosted#${n}`;
  const quoteId = await createQuote(ctx, flow, amount(ctx.rng));
  if (!quoteId) {
    return { outcome: null, settledIntent: null };
  }
  const base = `/v1/public/pay/quotes/${quoteId}/checkout`;
  const started = await ctx.app.call(flow, 'checkout', 'POST', base);
  const checkoutId = typeof started.body.id === 'string' ? started.body.id : null;
  if (started.status !== 200 && started.status !== 201) {
    return {
      outcome: {
        flow,
        subject: quoteId,
        client: started.gaveUp ? 'gave_up' : 'not_paid',
        answer: describe(started),
      },
      settledIntent: null,
    };
  }
  let body: Record<string, string> = { outcome: 'success' };
  if (ctx.rail === 'gateway') {
    const orderId = started.body.order_id as string | null;
    const fields = orderId ? await payOrderAtGateway(ctx, flow, orderId) : null;
    if (!fields) {
      return { outcome: null, settledIntent: null };
    }
    body = fields;
  }
  const done = await ctx.app.call(flow, 'complete', 'POST', `${base}/${checkoutId}/complete`, {
    json: body,
  });
  const status = done.body.status;
  const client: FlowOutcome['client'] = done.gaveUp
    ? 'gave_up'
    : done.status === 200 && status === 'paid'
      ? 'paid'
      : done.status === 200 && status === 'processing'
        ? 'pending'
        : 'not_paid';
  return {
    outcome: {
      flow,
      subject: quoteId,
      client,
      answer: `${describe(done)}${typeof status === 'string' ? ` ${status}` : ''}`,
    },
    settledIntent: client === 'paid' ? ((done.body.intent_id as string | null) ?? null) : null,
  };
}

/** Gateway rail: the seller asks for a payment link, the payer pays it at the gateway; webhooks settle it. */
export async function linkPay(ctx: FlowContext, n: number): Promise<FlowResult> {
  const flow = `link#${n}`;
  const quoteId = await createQuote(ctx, flow, ctx.rng.int(100, 1900) * 100);
  if (!quoteId || !ctx.sim) {
    return { outcome: null, settledIntent: null };
  }
  const path = `/v1/pay/quotes/${quoteId}/payment-link`;
  const link = await ctx.app.call(flow, 'link', 'POST', path, {
    headers: bearer(ctx.sb.seller.credential),
  });
  const gatewayLink = link.body.gateway_link_id;
  if (link.status !== 200 || typeof gatewayLink !== 'string') {
    return {
      outcome: {
        flow,
        subject: quoteId,
        client: link.gaveUp ? 'gave_up' : 'not_paid',
        answer: describe(link),
      },
      settledIntent: null,
    };
  }
  const paid = await ctx.sim.call(flow, 'link_page', 'POST', '/__sim/payment_links/pay', {
    json: { link_id: gatewayLink },
    idempotencyKey: null,
  });
  if (paid.status !== 200) {
    // Maybe paid by an attempt whose answer was lost; the webhook (or the reconciler) settles it.
  }
  // The payer is done; what the seller's agent is told is the link's state once it settled.
  const deadline = Date.now() + 60_000;
  let last: Answer = link;
  while (Date.now() < deadline) {
    last = await ctx.app.call(flow, 'link_status', 'GET', path, {
      headers: bearer(ctx.sb.seller.credential),
    });
    if (
      last.status === 200 &&
      last.body.status !== 'created' &&
      last.body.status !== 'processing'
    ) {
      break;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  const status = last.body.status;
  return {
    outcome: {
      flow,
      subject: quoteId,
      client:
        status === 'paid'
          ? 'paid'
          : status === 'failed' || status === 'expired'
            ? 'not_paid'
            : 'pending',
      answer: `${describe(last)}${typeof status === 'string' ? ` ${status}` : ''}`,
    },
    settledIntent: status === 'paid' ? ((last.body.intent_id as string | null) ?? null) : null,
  };
}

/** The seller refunds a settled intent in full; the seller's person approves it in the app. */
export async function refund(ctx: FlowContext, n: number, intentId: string): Promise<void> {
  const flow = `refund#${n}`;
  const asked = await ctx.app.call(flow, 'request', 'POST', `/v1/pay/intents/${intentId}/refunds`, {
    headers: bearer(ctx.sb.seller.credential),
    json: { reason: 'chaos run' },
  });
  const approvalId = asked.body.approval_id;
  if (asked.status !== 201 || typeof approvalId !== 'string') {
    return;
  }
  const cookie = await ctx.personCookie();
  // The approval page carries the form's CSRF field; read it again until the app answers.
  let csrf: string | undefined;
  for (let i = 0; i < 60 && !csrf; i++) {
    const page = await fetch(`${ctx.appUrl}/app/approvals/${approvalId}`, {
      headers: { cookie },
      signal: AbortSignal.timeout(10_000),
    }).catch(() => null);
    const html = page ? await page.text().catch(() => '') : '';
    csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
    if (!csrf) {
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  if (!csrf) {
    return;
  }
  await ctx.app.call(flow, 'approve', 'POST', `/app/approvals/${approvalId}/approve`, {
    headers: { cookie },
    form: { _csrf: csrf, confirm: 'yes' },
  });
}
