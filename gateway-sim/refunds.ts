import type { GatewayPayment, GatewayRefund } from '../src/rails/gateway/gateway-client.types';
import { SimCore } from './core';
import { badRequest, notFound } from './errors';
import { Payments } from './payments';
import { collection, copy, RefundRecord } from './store';
import { asBody, notes, optInt, optStr } from './validate';

/**
 * How a new refund ends (`POST /__sim/refunds {mode}`): `processed` (default) — processed within
 * the same call; `pending` — stays pending until `POST /__sim/refunds/process`; `fail` — fails
 * within the same call and its amount becomes refundable again.
 */
export type RefundMode = 'processed' | 'pending' | 'fail';

export class Refunds {
  private mode: RefundMode = 'processed';

  constructor(
    private readonly core: SimCore,
    private readonly payments: Payments,
  ) {}

  setMode(mode: RefundMode): void {
    this.mode = mode;
  }

  getMode(): RefundMode {
    return this.mode;
  }

  /** POST /v1/payments/:id/refund — full (no amount) or partial, ≤ captured − refunded. */
  create(paymentId: string, raw: unknown): GatewayRefund {
    const payment = this.payments.payment(paymentId).wire;
    const body = asBody(raw);
    if (payment.status !== 'captured') {
      throw badRequest('Only a captured payment can be refunded', 'payment_id');
    }
    const refundable = payment.amount - payment.amount_refunded;
    if (refundable <= 0) {
      throw badRequest('The payment has been fully refunded already', 'amount');
    }
    const amount = optInt(body, 'amount', { min: 100 }) ?? refundable;
    if (amount > refundable) {
      throw badRequest(
        `The refund amount is greater than what is left to refund (${refundable} paise)`,
        'amount',
      );
    }
    const rec: RefundRecord = {
      wire: {
        id: this.core.ids.next('rfnd'),
        entity: 'refund',
        amount,
        payment_id: payment.id,
        currency: 'INR',
        status: 'pending',
        receipt: optStr(body, 'receipt', { max: 40 }) ?? null,
        notes: notes(body),
        created_at: this.core.clock.nowSec(),
      },
      settlementId: null,
    };
    this.core.store.refunds.set(rec.wire.id, rec);
    payment.amount_refunded += amount;
    setRefundStatus(payment);
    this.core.webhooks.emit([
      { event: 'refund.created', payload: refundPayload(rec.wire, payment) },
    ]);
    switch (this.mode) {
      case 'processed':
        this.finish(rec, 'processed');
        break;
      case 'fail':
        this.finish(rec, 'failed');
        break;
      case 'pending':
        break;
    }
    return copy(rec.wire);
  }

  get(id: string): GatewayRefund {
    return copy(this.refund(id).wire);
  }

  listOfPayment(paymentId: string) {
    this.payments.payment(paymentId);
    return collection(this.core.store.refundsOfPayment(paymentId));
  }

  /** Ends pending refunds (one, or all) as processed or failed. Returns the refunds ended. */
  processPending(refundId: string | null, status: 'processed' | 'failed'): GatewayRefund[] {
    const targets = refundId
      ? [this.refund(refundId)]
      : [...this.core.store.refunds.values()].filter((r) => r.wire.status === 'pending');
    for (const r of targets) {
      if (r.wire.status !== 'pending') {
        throw badRequest(`The refund ${r.wire.id} is ${r.wire.status}, not pending`);
      }
      this.finish(r, status);
    }
    return targets.map((r) => copy(r.wire));
  }

  private finish(rec: RefundRecord, status: 'processed' | 'failed'): void {
    const payment = this.payments.payment(rec.wire.payment_id).wire;
    rec.wire.status = status;
    if (status === 'failed') {
      payment.amount_refunded -= rec.wire.amount;
      setRefundStatus(payment);
    }
    this.core.webhooks.emit([
      {
        event: status === 'processed' ? 'refund.processed' : 'refund.failed',
        payload: refundPayload(rec.wire, payment),
      },
    ]);
  }

  private refund(id: string): RefundRecord {
    const r = this.core.store.refunds.get(id);
    if (!r) {
      throw notFound('refund');
    }
    return r;
  }
}

function setRefundStatus(p: GatewayPayment): void {
  p.refund_status =
    p.amount_refunded === 0 ? null : p.amount_refunded >= p.amount ? 'full' : 'partial';
}

function refundPayload(refund: GatewayRefund, payment: GatewayPayment) {
  return { refund: { entity: refund }, payment: { entity: payment } };
}
