import type { AcpCheckoutSession } from '../checkout/dto/checkout-session.response';
import type { AppConfig } from '../config/app.config';
import type { Negotiated } from './ucp-negotiation';
import { CHECKOUT_CAPABILITY, responseHandler, UCP_HANDLER_NAME, UCP_VERSION } from './ucp-profile';

/**
 * A checkout session as UCP's `schemas/shopping/checkout.json` has it (docs/ucp.md "Checkout"),
 * translated from the ACP body CheckoutService / CheckoutCompletionService present: one session,
 * one pricing, two wire shapes. Nothing here prices or decides; it renames.
 */

type Json = Record<string, unknown>;

export type UcpCheckout = Json & { id: string; status: string };

/** ACP status → UCP status (docs/ucp.md "Statuses"). */
const STATUS: Record<string, string> = {
  not_ready_for_payment: 'incomplete',
  ready_for_payment: 'ready_for_complete',
  // Paid for by the platform; a person's approval in the app (or the rail) ends it: GET shows it.
  pending_approval: 'complete_in_progress',
  complete_in_progress: 'complete_in_progress',
  completed: 'completed',
  canceled: 'canceled',
  // UCP has no expired: canceled is "invalid or expired".
  expired: 'canceled',
};

/** ACP message codes UCP has a standard name for. */
const MESSAGE_CODES: Record<string, string> = {
  payment_declined: 'payment_failed',
};

const LINK_TYPES: Record<string, string> = { terms_of_use: 'terms_of_service' };

/** Total types of our ACP bodies UCP does not know: items_base_amount repeats the subtotal here. */
const DROPPED_TOTALS = new Set(['items_base_amount', 'base_amount']);

const SEVERITIES = new Set(['recoverable', 'requires_buyer_input', 'requires_buyer_review']);

interface AcpTotal {
  type: string;
  display_text?: string;
  amount: number;
}

function totals(list: unknown): Json[] {
  return ((list as AcpTotal[] | undefined) ?? [])
    .filter((t) => !DROPPED_TOTALS.has(t.type))
    .map((t) => ({
      type: t.type,
      ...(t.display_text !== undefined ? { display_text: t.display_text } : {}),
      amount: t.amount,
    }));
}

function message(m: Json): Json {
  const path = typeof m.param === 'string' ? { path: m.param } : {};
  const contentType = m.content_type === 'markdown' ? 'markdown' : 'plain';
  const code = typeof m.code === 'string' ? (MESSAGE_CODES[m.code] ?? m.code) : undefined;
  if (m.type === 'error') {
    return {
      type: 'error',
      code: code ?? 'invalid',
      content: m.content,
      content_type: contentType,
      severity:
        typeof m.resolution === 'string' && SEVERITIES.has(m.resolution)
          ? m.resolution
          : 'recoverable',
      ...path,
    };
  }
  if (m.type === 'warning') {
    return {
      type: 'warning',
      code: code ?? 'notice',
      content: m.content,
      content_type: contentType,
      ...path,
    };
  }
  return {
    type: 'info',
    ...(code !== undefined ? { code } : {}),
    content: m.content,
    content_type: contentType,
    ...path,
  };
}

function buyer(b: Json | undefined): Json | undefined {
  if (!b) {
    return undefined;
  }
  const out: Json = {};
  for (const key of ['first_name', 'last_name', 'email', 'phone_number'] as const) {
    if (typeof b[key] === 'string') {
      out[key] = b[key];
    }
  }
  return out;
}

/**
 * The `ucp` object of a checkout response: our handler, and of the negotiated capabilities only
 * those relevant to a checkout response (docs/ucp.md "Responses"): checkout, never order, which
 * belongs to order responses and webhooks.
 */
export function checkoutEnvelope(
  config: AppConfig,
  negotiated: Negotiated,
  merchantId: string,
): Json {
  const checkout = negotiated.capabilities[CHECKOUT_CAPABILITY];
  return {
    version: UCP_VERSION,
    status: 'success',
    capabilities: checkout ? { [CHECKOUT_CAPABILITY]: checkout } : {},
    payment_handlers: { [UCP_HANDLER_NAME]: [responseHandler(config, merchantId)] },
  };
}

export function toUcpCheckout(acp: AcpCheckoutSession, envelope: Json): UcpCheckout {
  const out: UcpCheckout = {
    ucp: envelope,
    id: acp.id,
    status: STATUS[acp.status] ?? 'incomplete',
    currency: acp.currency.toUpperCase(),
    line_items: acp.line_items.map((l) => ({
      id: l.id,
      item: {
        id: (l.item as Json).id,
        title: l.name,
        price: l.unit_amount,
      },
      quantity: l.quantity,
      totals: totals(l.totals),
    })),
    totals: totals(acp.totals),
    messages: acp.messages.map(message),
    links: acp.links.map((l) => ({
      type: LINK_TYPES[l.type as string] ?? l.type,
      url: l.url,
      ...(typeof l.title === 'string' ? { title: l.title } : {}),
    })),
    expires_at: acp.expires_at,
  };
  const b = buyer(acp.buyer);
  if (b) {
    out.buyer = b;
  }
  if (acp.status === 'expired') {
    (out.messages as Json[]).push({
      type: 'info',
      code: 'expired',
      content: 'This checkout session expired. Start a new one.',
      content_type: 'plain',
    });
  }
  if (acp.order) {
    out.order = { id: acp.order.id, permalink_url: acp.order.permalink_url };
  }
  const receiptId = acp.metadata?.svc_receipt_id;
  if (typeof receiptId === 'string') {
    // Our extension (docs/ucp.md "Extensions"): the signed receipt of the payment.
    out['com.svc.receipt'] = { id: receiptId };
  }
  return out;
}
