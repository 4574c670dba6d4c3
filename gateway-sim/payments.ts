import type { GatewayOrder, GatewayPayment } from '../src/rails/gateway/gateway-client.types';
import { paymentSignature } from '../src/rails/gateway/gateway-signatures';
import { SimCore } from './core';
import { badRequest, notFound, SimError } from './errors';
import { Decision, Failure, FailureReason, FAILURES } from './outcomes';
import { collection, copy, feeFor, OrderRecord, PaymentRecord } from './store';
import { asBody, currency, int, notes, str } from './validate';
import { NewEvent } from './webhooks';

export interface AttemptOptions {
  vpa: string | null;
  /**
   * An outcome already decided (the payer pressed Fail, or approved/rejected a mandate): the
   * outcome controls (/__sim/next, VPAs, amount triggers) are not consulted.
   */
  outcome?: { kind: 'succeed' } | { kind: 'fail'; reason: FailureReason };
  customerId?: string | null;
  tokenId?: string | null;
  description?: string | null;
  notes?: Record<string, string>;
  /** More events for the same webhook batch once the payment is captured (e.g. payment_link.paid). */
  onCaptured?: (payment: GatewayPayment, order: GatewayOrder) => NewEvent[];
}

type Resolved = Exclude<Decision, { kind: 'hang' }>;

export interface AttemptResult {
  payment: GatewayPayment;
  order: GatewayOrder;
  failure: Failure | null;
  /** How long the HTTP answer waits after the money moved (`/__sim/next` respond_delay_ms). */
  respondDelayMs: number;
}

/** The three fields a successful checkout hands back (widget handler, redirect form). */
export interface CheckoutSuccess {
  gateway_payment_id: string;
  gateway_order_id: string;
  gateway_signature: string;
}

/** Orders, payment attempts and capture. */
export class Payments {
  constructor(private readonly core: SimCore) {}

  createOrder(raw: unknown): GatewayOrder {
    const body = asBody(raw);
    const amount = int(body, 'amount', { min: 100 });
    currency(body);
    const receipt = str(body, 'receipt', { max: 40 });
    const autoCapture =
      body.payment_capture === undefined
        ? true
        : body.payment_capture !== false && body.payment_capture !== 0;
    return copy(this.newOrder({ amount, receipt, notes: notes(body), autoCapture }).wire);
  }

  /** An order without input checks, for callers that checked already (links, blocks, tokens). */
  newOrder(input: {
    amount: number;
    receipt: string;
    notes?: Record<string, string>;
    autoCapture?: boolean;
    customerId?: string | null;
    tokenId?: string | null;
    linkId?: string | null;
  }): OrderRecord {
    const rec: OrderRecord = {
      wire: {
        id: this.core.ids.next('order'),
        entity: 'order',
        amount: input.amount,
        amount_paid: 0,
        amount_due: input.amount,
        currency: 'INR',
        receipt: input.receipt,
        status: 'created',
        attempts: 0,
        notes: input.notes ?? {},
        created_at: this.core.clock.nowSec(),
        customer_id: input.customerId ?? null,
        token_id: input.tokenId ?? null,
      },
      autoCapture: input.autoCapture ?? true,
      linkId: input.linkId ?? null,
    };
    this.core.store.orders.set(rec.wire.id, rec);
    return rec;
  }

  getOrder(id: string): GatewayOrder {
    return copy(this.order(id).wire);
  }

  order(id: string): OrderRecord {
    const rec = this.core.store.order(id);
    if (!rec) {
      throw notFound('order');
    }
    return rec;
  }

  findOrders(receipt: string | null) {
    const all = [...this.core.store.orders.values()].map((o) => o.wire);
    return collection(receipt === null ? all : all.filter((o) => o.receipt === receipt));
  }

  listOrderPayments(orderId: string) {
    this.order(orderId);
    return collection(this.core.store.paymentsOfOrder(orderId));
  }

  getPayment(id: string): GatewayPayment {
    return copy(this.payment(id).wire);
  }

  payment(id: string): PaymentRecord {
    const rec = this.core.store.payments.get(id);
    if (!rec) {
      throw notFound('payment');
    }
    return rec;
  }

  /** POST /v1/payments/:id/capture — only an authorized payment, for exactly its amount. */
  capturePayment(id: string, raw: unknown): GatewayPayment {
    const rec = this.payment(id);
    const body = asBody(raw);
    const amount = int(body, 'amount', { min: 1 });
    currency(body);
    const p = rec.wire;
    if (p.status === 'captured') {
      throw badRequest('This payment has already been captured');
    }
    if (p.status !== 'authorized') {
      throw badRequest(
        'Only payments which have been authorized and not yet captured can be captured',
      );
    }
    if (amount !== p.amount) {
      throw badRequest('Capture amount must be equal to the amount authorized', 'amount');
    }
    const order = this.order(p.order_id);
    if (order.wire.status === 'paid') {
      throw badRequest('The order of this payment is already paid');
    }
    this.core.webhooks.emit(this.capture(rec, order));
    return copy(p);
  }

  /**
   * One payment attempt on an order, deciding its outcome (outcomes.ts). A "hang" waits here until
   * `POST /__sim/release`. Webhooks of the attempt go out as one batch.
   */
  async attempt(orderId: string, opts: AttemptOptions): Promise<AttemptResult> {
    const order = this.order(orderId);
    if (order.wire.status === 'paid') {
      throw badRequest('Order is already paid', 'order_id');
    }
    const decided: Decision =
      opts.outcome?.kind === 'succeed'
        ? { kind: 'succeed', respondDelayMs: 0 }
        : opts.outcome?.kind === 'fail'
          ? { kind: 'fail', failure: FAILURES[opts.outcome.reason], respondDelayMs: 0 }
          : this.core.outcomes.decide({ amount: order.wire.amount, vpa: opts.vpa });
    const rec = this.newPayment(order, opts);
    const p = rec.wire;
    const decision =
      decided.kind === 'hang' ? await this.afterHang(order, decided.respondDelayMs) : decided;

    switch (decision.kind) {
      case 'succeed': {
        p.status = 'authorized';
        const events: NewEvent[] = [
          // A snapshot: the capture below changes `p` before the batch is sent.
          { event: 'payment.authorized', payload: { payment: { entity: copy(p) } } },
        ];
        if (order.autoCapture) {
          events.push(...this.capture(rec, order));
          events.push(...(opts.onCaptured?.(p, order.wire) ?? []));
        }
        this.core.webhooks.emit(events);
        return {
          payment: copy(p),
          order: copy(order.wire),
          failure: null,
          respondDelayMs: decision.respondDelayMs,
        };
      }
      case 'fail':
        this.fail(rec, decision.failure);
        return {
          payment: copy(p),
          order: copy(order.wire),
          failure: decision.failure,
          respondDelayMs: decision.respondDelayMs,
        };
    }
  }

  /** Waits for `POST /__sim/release`; the attempt then ends as the release says. */
  private async afterHang(order: OrderRecord, respondDelayMs: number): Promise<Resolved> {
    const generation = this.core.generation;
    const released = await this.core.outcomes.waitForRelease();
    if (generation !== this.core.generation) {
      throw new SimError(
        500,
        'SERVER_ERROR',
        'The simulator was reset while this payment was hanging',
      );
    }
    // Another attempt may have paid the order meanwhile: this one then fails.
    if (released === 'succeed' && order.wire.status !== 'paid') {
      return { kind: 'succeed', respondDelayMs };
    }
    return { kind: 'fail', failure: FAILURES.payment_failed, respondDelayMs };
  }

  /** A checkout attempt's answer: the three signed fields, or the failure as the gateway's 400. */
  checkoutResult(result: AttemptResult): CheckoutSuccess {
    if (result.failure) {
      throw paymentFailedError(result);
    }
    return {
      gateway_payment_id: result.payment.id,
      gateway_order_id: result.order.id,
      gateway_signature: paymentSignature(
        result.order.id,
        result.payment.id,
        this.core.config.keySecret,
      ),
    };
  }

  // ---- internals

  private newPayment(order: OrderRecord, opts: AttemptOptions): PaymentRecord {
    order.wire.attempts += 1;
    if (order.wire.status === 'created') {
      order.wire.status = 'attempted';
    }
    const rec: PaymentRecord = {
      wire: {
        id: this.core.ids.next('pay'),
        entity: 'payment',
        amount: order.wire.amount,
        currency: 'INR',
        status: 'created',
        order_id: order.wire.id,
        method: 'upi',
        vpa: opts.vpa,
        captured: false,
        amount_refunded: 0,
        refund_status: null,
        error_code: null,
        error_description: null,
        error_reason: null,
        fee: 0,
        tax: 0,
        customer_id: opts.customerId ?? order.wire.customer_id ?? null,
        token_id: opts.tokenId ?? null,
        description: opts.description ?? null,
        notes: opts.notes ?? {},
        created_at: this.core.clock.nowSec(),
      },
      settlementId: null,
    };
    this.core.store.payments.set(rec.wire.id, rec);
    return rec;
  }

  /** Marks a payment captured and its order paid; returns the webhooks to send. */
  private capture(rec: PaymentRecord, order: OrderRecord): NewEvent[] {
    const p = rec.wire;
    const { fee, tax } = feeFor(p.amount);
    p.status = 'captured';
    p.captured = true;
    p.fee = fee;
    p.tax = tax;
    order.wire.amount_paid = p.amount;
    order.wire.amount_due = 0;
    order.wire.status = 'paid';
    return [
      { event: 'payment.captured', payload: { payment: { entity: p } } },
      { event: 'order.paid', payload: { payment: { entity: p }, order: { entity: order.wire } } },
    ];
  }

  /** Marks a payment failed and sends payment.failed. */
  fail(rec: PaymentRecord, failure: Failure): void {
    const p = rec.wire;
    p.status = 'failed';
    p.error_code = failure.code;
    p.error_description = failure.description;
    p.error_reason = failure.reason;
    this.core.webhooks.emit([{ event: 'payment.failed', payload: { payment: { entity: p } } }]);
  }
}

/** A failed payment attempt as the API answers it: 400 with the reason and the ids. */
export function paymentFailedError(result: AttemptResult): SimError {
  const f = result.failure ?? FAILURES.payment_failed;
  return new SimError(400, f.code, f.description, {
    field: null,
    reason: f.reason,
    metadata: { order_id: result.order.id, payment_id: result.payment.id },
  });
}

/** `receipt` query: null when absent. */
export function receiptQuery(params: URLSearchParams): string | null {
  const r = params.get('receipt');
  if (r !== null && r.length > 40) {
    throw badRequest('The receipt may not be greater than 40 characters', 'receipt');
  }
  return r;
}
