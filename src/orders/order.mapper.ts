import { lineTotal, sessionTotal } from '../checkout/checkout-pricing';
import type { CheckoutSession } from '../checkout/checkout-session.entity';
import { orderPermalink } from '../checkout/checkout-session.mapper';
import type { AppConfig } from '../config/app.config';
import type { Refund } from '../refunds/refund.entity';
import type { AcpOrderAdjustment, AcpOrderResponse } from './dto/order.response';

/**
 * ACP status strings are open (the spec: "MUST accept unrecognized values gracefully"). Ours are
 * the defined values; a value we do not map is passed on as it is, never refused.
 */
const ADJUSTMENT_STATUS: Record<string, string> = {
  pending_approval: 'pending',
  processing: 'pending',
  succeeded: 'completed',
  denied: 'failed',
  expired: 'failed',
  failed: 'failed',
};

export function adjustmentStatus(refundStatus: string): string {
  return ADJUSTMENT_STATUS[refundStatus] ?? refundStatus;
}

export interface OrderFacts {
  /** A completed session (orderId and completedAt set). */
  session: CheckoutSession;
  /** Every refund of the session's payment, any status, oldest first. */
  refunds: Refund[];
  /**
   * Digital delivery done. It happens at completion (the access URL is the order page), right
   * after order_create: the order_create snapshot has it false, everything later true.
   */
  fulfilled: boolean;
}

function refundAdjustment(r: Refund): AcpOrderAdjustment {
  const when = r.succeededAt ?? r.decidedAt ?? r.createdAt;
  return {
    id: r.id,
    type: 'refund',
    occurred_at: when.toISOString(),
    status: adjustmentStatus(r.status),
    amount: r.amountPaise,
    currency: r.currency.toLowerCase(),
    ...(r.reason ? { description: r.reason } : {}),
    // Our refund state, a structured code beside the ACP status (e.g. denied vs expired).
    reason: r.failureCode ?? r.status,
  };
}

/**
 * The whole order as ACP 2026-04-17 `Order` (docs/acp.md §5.8). Every order_create, order_update
 * and GET /acp/orders/{id} body is built here, so a webhook and a GET of the same state are equal.
 */
export function toAcpOrder(f: OrderFacts, config: AppConfig): AcpOrderResponse {
  const s = f.session;
  const orderId = s.orderId as string;
  const completedAt = (s.completedAt ?? s.updatedAt).toISOString();
  const permalink = orderPermalink(config, orderId);
  const total = sessionTotal(s.lineItems);
  const refunded = f.refunds
    .filter((r) => r.status === 'succeeded')
    .reduce((sum, r) => sum + r.amountPaise, 0);
  const events = [{ id: `${orderId}_processing`, type: 'processing', occurred_at: completedAt }];
  if (f.fulfilled) {
    events.push({ id: `${orderId}_delivered`, type: 'delivered', occurred_at: completedAt });
  }
  return {
    type: 'order',
    id: orderId,
    checkout_session_id: s.id,
    permalink_url: permalink,
    status: f.fulfilled ? 'completed' : 'confirmed',
    line_items: s.lineItems.map((l) => ({
      id: l.id,
      title: l.name,
      product_id: l.sku,
      quantity: {
        ordered: l.quantity,
        current: l.quantity,
        fulfilled: f.fulfilled ? l.quantity : 0,
      },
      unit_price: l.unit_paise,
      subtotal: lineTotal(l),
      status: f.fulfilled ? 'fulfilled' : 'processing',
    })),
    fulfillments: [
      {
        id: `${orderId}_digital`,
        type: 'digital',
        status: f.fulfilled ? 'delivered' : 'processing',
        line_items: s.lineItems.map((l) => ({ id: l.id, quantity: l.quantity })),
        digital_delivery: { access_url: permalink },
        events,
      },
    ],
    adjustments: f.refunds.map(refundAdjustment),
    totals: [
      { type: 'items_base_amount', display_text: 'Items', amount: total },
      { type: 'subtotal', display_text: 'Subtotal', amount: total },
      // Always the original charge; refunds are in amount_refunded (ACP Order.totals).
      { type: 'total', display_text: 'Total', amount: total },
      { type: 'amount_refunded', display_text: 'Refunded', amount: refunded },
    ],
  };
}
