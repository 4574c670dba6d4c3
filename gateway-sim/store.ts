import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

import type {
  GatewayCustomer,
  GatewayOrder,
  GatewayPayment,
  GatewayPaymentLink,
  GatewayReconLine,
  GatewayRefund,
  GatewayReserveBlock,
  GatewaySettlement,
  GatewayToken,
} from '../src/rails/gateway/gateway-client.types';

/**
 * Everything the simulator knows, in memory. Records hold the wire object the API returns
 * (`wire`) plus the simulator's own bookkeeping beside it; responses are copies of `wire`.
 */
export interface OrderRecord {
  wire: GatewayOrder;
  /** Capture successful payments at once (order option `payment_capture`, default true). */
  autoCapture: boolean;
  linkId: string | null;
}

export interface PaymentRecord {
  wire: GatewayPayment;
  /** Set once a settlement cycle paid it out. */
  settlementId: string | null;
}

export interface RefundRecord {
  wire: GatewayRefund;
  settlementId: string | null;
}

export class Store {
  readonly orders = new Map<string, OrderRecord>();
  readonly payments = new Map<string, PaymentRecord>();
  readonly refunds = new Map<string, RefundRecord>();
  readonly customers = new Map<string, GatewayCustomer>();
  readonly tokens = new Map<string, GatewayToken>();
  /** Registration order id → the token it created. */
  readonly tokenByOrder = new Map<string, string>();
  readonly links = new Map<string, GatewayPaymentLink>();
  readonly blocks = new Map<string, GatewayReserveBlock>();
  readonly settlements = new Map<string, GatewaySettlement>();
  readonly reconLines: GatewayReconLine[] = [];

  order(id: string): OrderRecord | undefined {
    return this.orders.get(id);
  }

  paymentsOfOrder(orderId: string): GatewayPayment[] {
    return [...this.payments.values()]
      .filter((p) => p.wire.order_id === orderId)
      .map((p) => p.wire);
  }

  refundsOfPayment(paymentId: string): GatewayRefund[] {
    return [...this.refunds.values()]
      .filter((r) => r.wire.payment_id === paymentId)
      .map((r) => r.wire);
  }

  clear(): void {
    for (const m of [
      this.orders,
      this.payments,
      this.refunds,
      this.customers,
      this.tokens,
      this.tokenByOrder,
      this.links,
      this.blocks,
      this.settlements,
    ]) {
      m.clear();
    }
    this.reconLines.length = 0;
  }

  /** Everything, as plain JSON (for the optional state file, StateFile below). */
  saved(): SavedStore {
    const entries = <T>(m: Map<string, T>) => [...m.entries()];
    return copy({
      orders: entries(this.orders),
      payments: entries(this.payments),
      refunds: entries(this.refunds),
      customers: entries(this.customers),
      tokens: entries(this.tokens),
      tokenByOrder: entries(this.tokenByOrder),
      links: entries(this.links),
      blocks: entries(this.blocks),
      settlements: entries(this.settlements),
      reconLines: this.reconLines,
    });
  }

  /** Replaces everything with what saved() gave (of an earlier run). */
  restore(saved: SavedStore): void {
    this.clear();
    const fill = <T>(m: Map<string, T>, rows: [string, T][]) => {
      for (const [k, v] of rows) {
        m.set(k, v);
      }
    };
    fill(this.orders, saved.orders);
    fill(this.payments, saved.payments);
    fill(this.refunds, saved.refunds);
    fill(this.customers, saved.customers);
    fill(this.tokens, saved.tokens);
    fill(this.tokenByOrder, saved.tokenByOrder);
    fill(this.links, saved.links);
    fill(this.blocks, saved.blocks);
    fill(this.settlements, saved.settlements);
    this.reconLines.push(...saved.reconLines);
  }
}

export interface SavedStore {
  orders: [string, OrderRecord][];
  payments: [string, PaymentRecord][];
  refunds: [string, RefundRecord][];
  customers: [string, GatewayCustomer][];
  tokens: [string, GatewayToken][];
  tokenByOrder: [string, string][];
  links: [string, GatewayPaymentLink][];
  blocks: [string, GatewayReserveBlock][];
  settlements: [string, GatewaySettlement][];
  reconLines: GatewayReconLine[];
}

/**
 * Optional durability (docs/gateway-simulator.md "Running it", `GATEWAY_SIM_STATE_FILE`): the
 * simulator's whole state as one JSON file, written to a temporary file beside it and renamed
 * over it (never half-written), so a simulator killed at any instant starts again from its last
 * write, as a real gateway keeps its orders, payments, idempotency keys and undelivered events.
 * Without a file nothing is written and everything stays in memory (the tests' default).
 */
export class StateFile {
  private last = '';

  constructor(readonly path: string) {}

  load<T>(): T | null {
    if (!existsSync(this.path)) {
      return null;
    }
    const text = readFileSync(this.path, 'utf8');
    this.last = text;
    return JSON.parse(text) as T;
  }

  /** Writes only when something changed since the last write. */
  save(state: unknown): void {
    const text = JSON.stringify(state);
    if (text === this.last) {
      return;
    }
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, text);
    renameSync(tmp, this.path);
    this.last = text;
  }
}

/** A deep copy for a response or a webhook, so later changes never reach what was sent. */
export function copy<T>(value: T): T {
  return structuredClone(value);
}

/** `{entity:"collection", count, items}` */
export function collection<T>(items: T[]): { entity: 'collection'; count: number; items: T[] } {
  return { entity: 'collection', count: items.length, items: copy(items) };
}

/**
 * Fees (docs/gateway-simulator.md "Fees and tax"): fee = 2% of the amount, tax = 18% of the fee,
 * each rounded half up to the paisa, in integer arithmetic (amounts are capped far below 2^53/18).
 */
export function feeFor(amount: number): { fee: number; tax: number } {
  const fee = Math.floor((amount * 2 + 50) / 100);
  const tax = Math.floor((fee * 18 + 50) / 100);
  return { fee, tax };
}
