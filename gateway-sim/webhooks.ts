import type { GatewayWebhookEventName } from '../src/rails/gateway/gateway-client.types';
import { webhookSignature } from '../src/rails/gateway/gateway-signatures';
import { SimClock } from './clock';
import { IdGenerator } from './ids';
import { copy } from './store';

/**
 * Outbound webhooks (docs/gateway-simulator.md "Webhooks").
 *
 * Every event is serialised once; that exact body is what is signed (`X-Gateway-Signature`, hex
 * HMAC-SHA256 with the webhook secret) and sent on every attempt, retry and duplicate, all under
 * the same `X-Gateway-Event-Id`. Deliveries go out one at a time, in order, so what a receiver
 * sees is deterministic. A non-2xx answer or a timeout is retried after retryMs · 2^(attempt−1),
 * up to maxAttempts. Events with no URL configured wait until one is set.
 *
 * Faults on demand (`POST /__sim/webhooks`): duplicate n (each event sent n extra times),
 * reverse_order (the events of one action — and a flushed hold — go out last first),
 * hold (keep events until flush), drop (record and never send; true, or a count of events).
 */
export type Payload = Partial<
  Record<
    'payment' | 'order' | 'refund' | 'token' | 'payment_link' | 'settlement' | 'reserve_pay_block',
    { entity: unknown }
  >
>;

export interface NewEvent {
  event: GatewayWebhookEventName;
  payload: Payload;
}

type EventState = 'queued' | 'held' | 'delivered' | 'failed' | 'dropped';
type DeliveryKind = 'original' | 'retry' | 'duplicate' | 'redelivery';

export interface EventRecord {
  id: string;
  event: GatewayWebhookEventName;
  body: string;
  createdAtMs: number;
  state: EventState;
  attempts: number;
}

interface Delivery {
  record: EventRecord;
  kind: DeliveryKind;
}

export interface DeliveryLogEntry {
  event_id: string;
  event: GatewayWebhookEventName;
  kind: DeliveryKind | 'dropped' | 'held';
  /** 1 for the first try of the original, then 2, 3… for its retries; 0 for duplicates and log-only entries. */
  attempt: number;
  url: string | null;
  status_code: number | null;
  error: string | null;
  outcome: 'delivered' | 'failed' | 'dropped' | 'held';
  at_ms: number;
}

export interface WebhookMode {
  duplicate: number;
  reverse_order: boolean;
  hold: boolean;
  /** false, true (drop every event), or how many more events to drop. */
  drop: boolean | number;
}

export interface WebhookOptions {
  accountId: string;
  webhookSecret: string;
  url: string | null;
  retryMs: number;
  maxAttempts: number;
  timeoutMs: number;
}

const DEFAULT_MODE: WebhookMode = { duplicate: 0, reverse_order: false, hold: false, drop: false };

export class WebhookDispatcher {
  private url: string | null;
  private mode: WebhookMode = { ...DEFAULT_MODE };
  private readonly events = new Map<string, EventRecord>();
  private held: EventRecord[] = [];
  private queue: Delivery[] = [];
  private readonly log: DeliveryLogEntry[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private pumping = false;
  private idleWaiters: (() => void)[] = [];
  private closed = false;

  constructor(
    private readonly opts: WebhookOptions,
    private readonly clock: SimClock,
    private readonly ids: IdGenerator,
  ) {
    this.url = opts.url;
  }

  setUrl(url: string | null): void {
    this.url = url;
    this.pump();
  }

  getUrl(): string | null {
    return this.url;
  }

  setMode(change: Partial<WebhookMode> & { flush?: boolean }): WebhookMode {
    const { flush, ...rest } = change;
    this.mode = { ...this.mode, ...rest };
    if (flush) {
      this.flush(change.hold === true);
    }
    return { ...this.mode };
  }

  getMode(): WebhookMode {
    return { ...this.mode };
  }

  /** The events of one action (e.g. payment.captured then order.paid), in their natural order. */
  emit(batch: NewEvent[]): void {
    const records = batch.map((e) => this.record(e));
    const toSend: EventRecord[] = [];
    for (const r of records) {
      if (this.shouldDrop()) {
        r.state = 'dropped';
        this.logOnly(r, 'dropped');
      } else if (this.mode.hold) {
        r.state = 'held';
        this.held.push(r);
        this.logOnly(r, 'held');
      } else {
        toSend.push(r);
      }
    }
    this.enqueue(this.mode.reverse_order ? toSend.reverse() : toSend);
  }

  /** Sends an event again, as the real gateway's "resend" does (same id, same body). */
  redeliver(eventId: string): boolean {
    const r = this.events.get(eventId);
    if (!r) {
      return false;
    }
    this.queue.push({ record: r, kind: 'redelivery' });
    this.pump();
    return true;
  }

  deliveryLog(): DeliveryLogEntry[] {
    return copy(this.log);
  }

  eventList(): { id: string; event: string; state: EventState; attempts: number; body: unknown }[] {
    return [...this.events.values()].map((r) => ({
      id: r.id,
      event: r.event,
      state: r.state,
      attempts: r.attempts,
      body: JSON.parse(r.body) as unknown,
    }));
  }

  /** Work not yet done: queued deliveries, scheduled retries, a delivery in flight. */
  pending(): { queued: number; retries_scheduled: number; held: number; in_flight: boolean } {
    return {
      queued: this.queue.length,
      retries_scheduled: this.timers.size,
      held: this.held.length,
      in_flight: this.pumping,
    };
  }

  /**
   * Resolves once nothing is queued, in flight or waiting to be retried (held events and events
   * waiting for a URL do not count).
   */
  idle(): Promise<void> {
    if (this.isIdle()) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  reset(): void {
    for (const t of this.timers) {
      clearTimeout(t);
    }
    this.timers.clear();
    this.events.clear();
    this.held = [];
    this.queue = [];
    this.log.length = 0;
    this.mode = { ...DEFAULT_MODE };
    this.notifyIdle();
  }

  close(): void {
    this.closed = true;
    this.reset();
  }

  /** Every event with its state, for the optional state file (store.ts StateFile). */
  saved(): EventRecord[] {
    return [...this.events.values()].map((r) => ({ ...r }));
  }

  /**
   * Events of an earlier run of the same state file: those not yet delivered (queued, or waiting
   * for a retry when it stopped) are sent again, held ones stay held.
   */
  restore(records: EventRecord[]): void {
    const resend: EventRecord[] = [];
    for (const saved of records) {
      const r = { ...saved };
      this.events.set(r.id, r);
      if (r.state === 'queued') {
        resend.push(r);
      } else if (r.state === 'held') {
        this.held.push(r);
      }
    }
    for (const r of resend) {
      this.queue.push({ record: r, kind: r.attempts > 0 ? 'retry' : 'original' });
    }
    this.pump();
  }

  // ---- internals

  private record(e: NewEvent): EventRecord {
    const id = this.ids.next('evt');
    const body = JSON.stringify({
      entity: 'event',
      account_id: this.opts.accountId,
      event: e.event,
      contains: Object.keys(e.payload),
      payload: copy(e.payload),
      created_at: this.clock.nowSec(),
    });
    const r: EventRecord = {
      id,
      event: e.event,
      body,
      createdAtMs: this.clock.nowMs(),
      state: 'queued',
      attempts: 0,
    };
    this.events.set(id, r);
    return r;
  }

  private shouldDrop(): boolean {
    if (this.mode.drop === true) {
      return true;
    }
    if (typeof this.mode.drop === 'number' && this.mode.drop > 0) {
      this.mode.drop -= 1;
      if (this.mode.drop === 0) {
        this.mode.drop = false;
      }
      return true;
    }
    return false;
  }

  private flush(keepHolding: boolean): void {
    const held = this.held;
    this.held = [];
    if (!keepHolding) {
      this.mode.hold = false;
    }
    for (const r of held) {
      r.state = 'queued';
    }
    this.enqueue(this.mode.reverse_order ? held.reverse() : held);
  }

  private enqueue(records: EventRecord[]): void {
    for (const r of records) {
      this.queue.push({ record: r, kind: 'original' });
      for (let i = 0; i < this.mode.duplicate; i++) {
        this.queue.push({ record: r, kind: 'duplicate' });
      }
    }
    this.pump();
  }

  private logOnly(r: EventRecord, outcome: 'dropped' | 'held'): void {
    this.log.push({
      event_id: r.id,
      event: r.event,
      kind: outcome,
      attempt: 0,
      url: null,
      status_code: null,
      error: null,
      outcome,
      at_ms: this.clock.nowMs(),
    });
  }

  private pump(): void {
    if (this.pumping || this.closed) {
      return;
    }
    this.pumping = true;
    void this.drain().finally(() => {
      this.pumping = false;
      if (this.queue.length > 0 && this.url && !this.closed) {
        this.pump();
      } else {
        this.notifyIdle();
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.url && !this.closed) {
      const d = this.queue.shift();
      if (!d) {
        return;
      }
      await this.deliver(d, this.url);
    }
  }

  private async deliver(d: Delivery, url: string): Promise<void> {
    const r = d.record;
    const counts = d.kind === 'original' || d.kind === 'retry';
    if (counts) {
      r.attempts += 1;
    }
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'gateway-simulator',
          'x-gateway-signature': webhookSignature(r.body, this.opts.webhookSecret),
          'x-gateway-event-id': r.id,
        },
        body: r.body,
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
      statusCode = res.status;
      await res.arrayBuffer().catch(() => undefined);
    } catch (err) {
      // Not `instanceof`: fetch's DOMException may come from another realm.
      const name = (err as { name?: unknown } | null)?.name;
      error =
        name === 'TimeoutError' ? `timeout after ${this.opts.timeoutMs} ms` : 'connection failed';
    }
    const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
    this.log.push({
      event_id: r.id,
      event: r.event,
      kind: d.kind,
      attempt: counts ? r.attempts : 0,
      url,
      status_code: statusCode,
      error,
      outcome: ok ? 'delivered' : 'failed',
      at_ms: this.clock.nowMs(),
    });
    if (ok) {
      r.state = 'delivered';
    } else if (counts && r.state !== 'delivered') {
      if (r.attempts < this.opts.maxAttempts) {
        this.scheduleRetry(r);
      } else {
        r.state = 'failed';
      }
    }
  }

  private scheduleRetry(r: EventRecord): void {
    const delay = this.opts.retryMs * 2 ** (r.attempts - 1);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.closed) {
        return;
      }
      this.queue.push({ record: r, kind: 'retry' });
      this.pump();
      this.notifyIdle();
    }, delay);
    this.timers.add(timer);
  }

  private isIdle(): boolean {
    return (this.queue.length === 0 || !this.url) && !this.pumping && this.timers.size === 0;
  }

  private notifyIdle(): void {
    if (this.isIdle()) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) {
        w();
      }
    }
  }
}
