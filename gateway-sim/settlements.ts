import type {
  GatewayReconLine,
  GatewaySettlement,
} from '../src/rails/gateway/gateway-client.types';
import { SimCore } from './core';
import { badRequest, notFound } from './errors';
import { collection, copy, feeFor } from './store';

/**
 * Settlement cycles (`POST /__sim/settle`) and the reconciliation report.
 *
 * A cycle pays out every captured payment (amount > 0) and every processed refund not yet settled.
 * Per payment: fee = 2% of amount, tax = 18% of fee (each rounded half up, store.ts feeFor);
 * credit = amount − fee − tax. Per refund: debit = amount, no fee. The settlement's amount is
 * Σ credit − Σ debit; fees = Σ fee, tax = Σ tax.
 *
 * Injected mismatches (`POST /__sim/settlements/inject`) shape the next cycle:
 *   amount  — one payment's line reports its amount (and credit) off by `delta` paise (default −100);
 *   missing — one payment is never settled, so it never appears in the report;
 *   unknown — the report carries a payment the merchant never had (no order, no receipt).
 * Without payment_id, amount and missing pick the cycle's first payment.
 */
export type InjectionKind = 'amount' | 'missing' | 'unknown';

interface Injection {
  kind: InjectionKind;
  paymentId: string | null;
  delta: number;
  amount: number;
}

const IST_OFFSET_SEC = 5.5 * 3600;

export class Settlements {
  private injections: Injection[] = [];
  /** Payments a "missing" injection took out of every cycle. */
  private readonly withheld = new Set<string>();

  constructor(private readonly core: SimCore) {}

  inject(input: {
    kind: InjectionKind;
    paymentId?: string;
    delta?: number;
    amount?: number;
  }): number {
    if (input.paymentId && !this.core.store.payments.has(input.paymentId)) {
      throw notFound('payment');
    }
    this.injections.push({
      kind: input.kind,
      paymentId: input.paymentId ?? null,
      delta: input.delta ?? -100,
      amount: input.amount ?? 10_000,
    });
    return this.injections.length;
  }

  /** Runs one cycle; null when there was nothing to settle. */
  settle(): GatewaySettlement | null {
    const { store, clock, ids } = this.core;
    const injections = this.injections;
    this.injections = [];

    const payments = [...store.payments.values()].filter(
      (p) => p.wire.status === 'captured' && p.wire.amount > 0 && p.settlementId === null,
    );
    for (const inj of injections.filter((i) => i.kind === 'missing')) {
      const target = inj.paymentId ?? payments.find((p) => !this.withheld.has(p.wire.id))?.wire.id;
      if (target) {
        this.withheld.add(target);
      }
    }
    const settledPayments = payments.filter((p) => !this.withheld.has(p.wire.id));
    const refunds = [...store.refunds.values()].filter(
      (r) => r.wire.status === 'processed' && r.settlementId === null,
    );
    const unknowns = injections.filter((i) => i.kind === 'unknown');
    if (settledPayments.length === 0 && refunds.length === 0 && unknowns.length === 0) {
      return null;
    }

    const settlement: GatewaySettlement = {
      id: ids.next('setl'),
      entity: 'settlement',
      amount: 0,
      fees: 0,
      tax: 0,
      utr: ids.utr(),
      status: 'processed',
      created_at: clock.nowSec(),
    };
    const lines: GatewayReconLine[] = [];
    const orderOf = (orderId: string) => store.orders.get(orderId)?.wire ?? null;

    for (const p of settledPayments) {
      p.settlementId = settlement.id;
      const order = orderOf(p.wire.order_id);
      let amount = p.wire.amount;
      const inj = injections.find(
        (i) => i.kind === 'amount' && (i.paymentId === p.wire.id || i.paymentId === null),
      );
      if (inj) {
        injections.splice(injections.indexOf(inj), 1);
        amount += inj.delta;
      }
      lines.push(
        this.line(settlement, {
          entity_id: p.wire.id,
          type: 'payment',
          amount,
          fee: p.wire.fee,
          tax: p.wire.tax,
          debit: 0,
          credit: amount - p.wire.fee - p.wire.tax,
          order_id: p.wire.order_id,
          order_receipt: order?.receipt ?? null,
        }),
      );
    }
    for (const u of unknowns) {
      const { fee, tax } = feeFor(u.amount);
      lines.push(
        this.line(settlement, {
          entity_id: u.paymentId ?? ids.next('pay'),
          type: 'payment',
          amount: u.amount,
          fee,
          tax,
          debit: 0,
          credit: u.amount - fee - tax,
          order_id: null,
          order_receipt: null,
        }),
      );
    }
    for (const r of refunds) {
      r.settlementId = settlement.id;
      const payment = store.payments.get(r.wire.payment_id)?.wire;
      const order = payment ? orderOf(payment.order_id) : null;
      lines.push(
        this.line(settlement, {
          entity_id: r.wire.id,
          type: 'refund',
          amount: r.wire.amount,
          fee: 0,
          tax: 0,
          debit: r.wire.amount,
          credit: 0,
          order_id: payment?.order_id ?? null,
          order_receipt: order?.receipt ?? null,
        }),
      );
    }
    for (const l of lines) {
      settlement.amount += l.credit - l.debit;
      settlement.fees += l.fee;
      settlement.tax += l.tax;
    }
    store.settlements.set(settlement.id, settlement);
    store.reconLines.push(...lines);
    this.core.webhooks.emit([
      { event: 'settlement.processed', payload: { settlement: { entity: settlement } } },
    ]);
    return copy(settlement);
  }

  get(id: string): GatewaySettlement {
    const s = this.core.store.settlements.get(id);
    if (!s) {
      throw notFound('settlement');
    }
    return copy(s);
  }

  /** GET /v1/settlements/recon/combined?year&month[&day] — days are calendar days in IST. */
  recon(params: URLSearchParams) {
    const year = intParam(params, 'year', 2000, 2100);
    const month = intParam(params, 'month', 1, 12);
    const day = params.has('day') ? intParam(params, 'day', 1, 31) : null;
    return collection(
      this.core.store.reconLines.filter((l) => {
        const d = new Date((l.settled_at + IST_OFFSET_SEC) * 1000);
        return (
          d.getUTCFullYear() === year &&
          d.getUTCMonth() + 1 === month &&
          (day === null || d.getUTCDate() === day)
        );
      }),
    );
  }

  reset(): void {
    this.injections = [];
    this.withheld.clear();
  }

  private line(
    s: GatewaySettlement,
    l: Omit<GatewayReconLine, 'settlement_id' | 'settlement_utr' | 'settled_at'>,
  ): GatewayReconLine {
    return { ...l, settlement_id: s.id, settlement_utr: s.utr, settled_at: s.created_at };
  }
}

function intParam(params: URLSearchParams, name: string, min: number, max: number): number {
  const raw = params.get(name);
  const v = raw !== null && /^\d{1,4}$/.test(raw) ? Number(raw) : NaN;
  if (!(v >= min && v <= max)) {
    throw badRequest(`The ${name} must be an integer between ${min} and ${max}`, name);
  }
  return v;
}
