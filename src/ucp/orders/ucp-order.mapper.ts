import type { AcpOrderResponse } from '../../orders/dto/order.response';
import { ORDER_CAPABILITY, UCP_VERSION } from '../ucp-profile';

/**
 * The order as UCP's `schemas/shopping/order.json` has it (docs/ucp.md "Orders"), translated
 * from the ACP Order src/orders builds (toAcpOrder): the GET, the order_create and every
 * order_update snapshot come from the same ACP body, so a webhook and a GET of the same state
 * are equal. Nothing here decides; it renames.
 */

type Json = Record<string, unknown>;

export type UcpOrder = Json & { id: string; checkout_id: string };

/** The `ucp` object of an order response or webhook. */
export function orderEnvelope(): Json {
  return {
    version: UCP_VERSION,
    status: 'success',
    capabilities: { [ORDER_CAPABILITY]: [{ version: UCP_VERSION }] },
  };
}

const ADJUSTMENT_STATUSES = new Set(['pending', 'completed', 'failed']);

/** The order totals UCP knows: subtotal and total (the original charge); refunds are adjustments. */
const KEPT_TOTALS = new Set(['subtotal', 'total']);

export function toUcpOrder(acp: AcpOrderResponse): UcpOrder {
  const lines = acp.line_items.map((l) => {
    const total = l.quantity.current;
    const fulfilled = l.quantity.fulfilled ?? 0;
    const amount = l.subtotal ?? (l.unit_price ?? 0) * l.quantity.ordered;
    return {
      id: l.id,
      item: { id: l.product_id ?? l.id, title: l.title, price: l.unit_price ?? 0 },
      quantity: { original: l.quantity.ordered, total, fulfilled },
      totals: [
        { type: 'subtotal', amount },
        { type: 'total', amount },
      ],
      status:
        total === 0
          ? 'removed'
          : fulfilled === total
            ? 'fulfilled'
            : fulfilled > 0
              ? 'partial'
              : 'processing',
    };
  });
  const expectations: Json[] = [];
  const events: Json[] = [];
  for (const f of acp.fulfillments) {
    const refs = (f.line_items ?? []).map((r) => ({ id: r.id, quantity: r.quantity }));
    const access = f.digital_delivery?.access_url;
    expectations.push({
      id: f.id,
      line_items: refs,
      method_type: f.type,
      // Digital delivery has no address; UCP requires the field, none of its members.
      destination: {},
      description:
        f.type === 'digital' ? 'Digital delivery: available on the order page' : String(f.type),
      fulfillable_on: 'now',
    });
    for (const e of f.events ?? []) {
      events.push({
        id: e.id,
        occurred_at: e.occurred_at,
        type: e.type,
        line_items: refs,
        ...(e.type !== 'processing' && access ? { tracking_url: access } : {}),
        description:
          e.type === 'delivered' ? 'Delivered: open the order page' : 'Preparing the delivery',
      });
    }
  }
  return {
    ucp: orderEnvelope(),
    id: acp.id,
    checkout_id: acp.checkout_session_id,
    permalink_url: acp.permalink_url,
    currency: 'INR',
    line_items: lines,
    fulfillment: { expectations, events },
    adjustments: acp.adjustments.map((a) => ({
      id: a.id,
      type: a.type,
      occurred_at: a.occurred_at,
      status: ADJUSTMENT_STATUSES.has(a.status) ? a.status : 'pending',
      ...(a.amount !== undefined
        ? { totals: [{ type: 'total', display_text: 'Refund', amount: -a.amount }] }
        : {}),
      ...(a.description !== undefined ? { description: a.description } : {}),
    })),
    totals: acp.totals
      .filter((t) => KEPT_TOTALS.has(t.type))
      .map((t) => ({ type: t.type, display_text: t.display_text, amount: t.amount })),
  };
}
