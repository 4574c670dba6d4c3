import { ACP_VERSION } from '../common/auth/acp.guard';
import type { AppConfig } from '../config/app.config';
import { lineTotal, sessionTotal } from './checkout-pricing';
import type {
  CheckoutSession,
  CheckoutStatus,
  StoredLineItem,
  StoredMessage,
} from './checkout-session.entity';
import type { AcpCheckoutSession } from './dto/checkout-session.response';
import { upiMandateHandler } from './upi-mandate-handler';

export const DIGITAL_OPTION_ID = 'fo_digital';
export const LOCALE = 'en-IN';
export const TIMEZONE = 'Asia/Kolkata';

export interface SessionFacts {
  session: CheckoutSession;
  /** effectiveStatus(): expired is derived from expires_at. */
  status: CheckoutStatus;
  sellerName: string;
  /** The settled intent's receipt (completed sessions only). */
  receiptId: string | null;
}

export function orderPermalink(config: AppConfig, orderId: string): string {
  return `${config.appUrl}/orders/${orderId}`;
}

function amountTotals(amount: number, label: string) {
  return [
    { type: 'items_base_amount', display_text: label, amount },
    { type: 'subtotal', display_text: 'Subtotal', amount },
    { type: 'total', display_text: 'Total', amount },
  ];
}

function lineItem(l: StoredLineItem, sellerName: string) {
  return {
    id: l.id,
    item: { id: l.sku },
    quantity: l.quantity,
    name: l.name,
    unit_amount: l.unit_paise,
    sku: l.sku,
    category: l.category,
    marketplace_seller_details: { name: sellerName },
    totals: amountTotals(lineTotal(l), 'Item'),
  };
}

function messagesFor(f: SessionFacts): StoredMessage[] {
  if (f.status === 'expired') {
    return [
      {
        type: 'error',
        code: 'expired',
        severity: 'high',
        resolution: 'recoverable',
        content_type: 'plain',
        content: `This checkout session expired at ${f.session.expiresAt.toISOString()}. Create a new session to buy.`,
      },
    ];
  }
  return f.session.messages;
}

/**
 * The whole session as ACP 2026-04-17 `CheckoutSession` (docs/acp.md §4), or
 * `CheckoutSessionWithOrder` once completed. Every response (create, update, get, complete, cancel)
 * is built here, so the shapes cannot drift apart. The intent trace is write-only and never
 * appears.
 */
export function toAcpSession(f: SessionFacts, config: AppConfig): AcpCheckoutSession {
  const s = f.session;
  const total = sessionTotal(s.lineItems);
  const body: AcpCheckoutSession = {
    id: s.id,
    protocol: { version: ACP_VERSION },
    status: f.status,
    currency: s.currency,
    capabilities: {
      payment: { handlers: [upiMandateHandler(config, s.sellerAgentId)] },
      // The intersection of what the agent supports and what we support: we support none.
      interventions: { supported: [], required: [], enforcement: 'conditional' },
    },
    line_items: s.lineItems.map((l) => lineItem(l, f.sellerName)),
    fulfillment_options: [
      {
        type: 'digital',
        id: DIGITAL_OPTION_ID,
        title: 'Digital delivery',
        totals: [{ type: 'total', display_text: 'Digital delivery', amount: 0 }],
      },
    ],
    selected_fulfillment_options: [
      { type: 'digital', option_id: DIGITAL_OPTION_ID, item_ids: s.lineItems.map((l) => l.id) },
    ],
    totals: amountTotals(total, 'Items'),
    messages: messagesFor(f),
    links: [
      { type: 'terms_of_use', title: 'Terms of use', url: `${config.appUrl}/legal/terms` },
      { type: 'privacy_policy', title: 'Privacy policy', url: `${config.appUrl}/legal/privacy` },
    ],
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
    expires_at: s.expiresAt.toISOString(),
    locale: LOCALE,
    timezone: TIMEZONE,
    metadata: f.receiptId ? { svc_receipt_id: f.receiptId } : {},
  };
  if (s.buyer) {
    body.buyer = s.buyer;
  }
  if (s.fulfillmentDetails) {
    // CheckoutSessionBase.fulfillment_details (2026-04-17); absent, never null, when none was sent.
    body.fulfillment_details = { ...s.fulfillmentDetails };
  }
  if (f.status === 'completed' && s.orderId) {
    body.order = {
      type: 'order',
      id: s.orderId,
      checkout_session_id: s.id,
      permalink_url: orderPermalink(config, s.orderId),
      status: 'confirmed',
    };
  }
  return body;
}
