import { Injectable, Logger, OnModuleInit } from '@nestjs/common';

import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { PgListener } from '../common/sweeper/pg-listener';
import { Sweeper } from '../common/sweeper/sweeper';
import { Tx } from '../database/tx';
import { claimUndispatched, OUTBOX_CHANNEL } from '../outbox/outbox.repository';
import { WebhookDeliveryProducer } from './webhook-delivery.producer';
import { insertDeliveries, stalledDeliveries } from './webhook-delivery.repository';
import { matchEndpoints } from './webhook-endpoint.repository';

/** Outbox rows claimed per transaction. */
export const DISPATCH_BATCH = 100;
/** Batches per tick, so a backlog after an outage drains quickly without starving other sweeps. */
const MAX_BATCHES_PER_TICK = 10;
/** A pending delivery due this long ago with no progress has lost its job (Redis restart, failed enqueue). */
export const STALL_GRACE_MS = 10_000;
const STALL_SWEEP_EVERY_MS = 5_000;
/**
 * First key of the two-key advisory lock (second: hashtext(workspace_id)) that orders endpoint
 * registration (exclusive) against the outbox fan-out (shared). Two-key advisory locks live apart
 * from the bigint ones used elsewhere; a hash collision between workspaces only waits a little more.
 */
export const ENDPOINTS_LOCK_CLASS = 0x57484550; // "WHEP"

const DISPATCH_SWEEP = 'webhooks.dispatch-outbox';
const WOKEN_SWEEP = 'webhooks.dispatch-notified';

/**
 * Turns committed outbox rows into deliveries and queue jobs, and re-wakes deliveries whose job
 * went missing. Both run on the Sweeper, not in the request path: a request only writes its
 * outbox row, so neither Redis nor a slow receiver can slow it down.
 *
 * The outbox insert also NOTIFYs `outbox_events` with the event id in its transaction, so the
 * event is dispatched as soon as it commits: every instance hears it and claims exactly the
 * notified ids by primary key (SKIP LOCKED gives each event to one), never scanning the
 * undispatched index per event (its dead entries pile up between vacuums). The Sweeper's tick
 * (WEBHOOK_DISPATCH_INTERVAL_MS) keeps claiming the oldest undispatched events as the safety net
 * for a lost notification or a LISTEN connection that is down, and a reconnect runs it at once.
 */
@Injectable()
export class WebhookDispatcher implements OnModuleInit {
  private readonly logger = new Logger(WebhookDispatcher.name);
  /** Event ids notified since the last woken dispatch. */
  private readonly notified = new Set<string>();

  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly producer: WebhookDeliveryProducer,
    private readonly sweeper: Sweeper,
    private readonly listener: PgListener,
  ) {}

  onModuleInit(): void {
    this.sweeper.register(DISPATCH_SWEEP, () => this.dispatchPending());
    this.sweeper.register(WOKEN_SWEEP, () => this.dispatchNotified(), { wakeOnly: true });
    this.listener.on(OUTBOX_CHANNEL, (eventId) => {
      if (eventId) {
        this.notified.add(eventId);
        this.sweeper.wake(WOKEN_SWEEP);
      } else {
        this.sweeper.wake(DISPATCH_SWEEP);
      }
    });
    this.listener.onStateChange((up) => up && this.sweeper.wake(DISPATCH_SWEEP));
    this.sweeper.register('webhooks.resume-stalled', () => this.resumeStalled(), {
      everyMs: STALL_SWEEP_EVERY_MS,
    });
  }

  async dispatchPending(): Promise<number> {
    let total = 0;
    for (let i = 0; i < MAX_BATCHES_PER_TICK; i++) {
      const n = await this.dispatchBatch();
      total += n;
      if (n < DISPATCH_BATCH) {
        break;
      }
    }
    return total;
  }

  /** The events notified since the last run, claimed by id (those another instance holds are skipped). */
  async dispatchNotified(): Promise<number> {
    const ids = [...this.notified];
    this.notified.clear();
    let total = 0;
    for (let i = 0; i < ids.length; i += DISPATCH_BATCH) {
      total += await this.dispatchBatch(ids.slice(i, i + DISPATCH_BATCH));
    }
    return total;
  }

  /**
   * One transaction: claim waiting events (SKIP LOCKED, so instances share the work; the claim
   * takes them off outbox_pending) and insert a delivery per matching enabled endpoint registered at
   * or before the event's created_at (an endpoint gets what happens from its registration on, never
   * the backlog). Once it has committed, each new delivery's first attempt is enqueued
   * (`enqueueFirstAttempts`). With Redis down nothing is claimed, and the next tick tries again.
   */
  async dispatchBatch(ids?: string[]): Promise<number> {
    if (!this.producer.ready) {
      return 0; // leave the rows undispatched without holding their locks
    }
    let created: { id: string; event_id: string }[] = [];
    const dispatched = await this.tx.run(async (m) => {
      created = []; // a retried attempt starts again
      const events = await claimUndispatched(m, ids ?? null, DISPATCH_BATCH);
      if (events.length === 0) {
        return 0;
      }
      const workspaceIds = [...new Set(events.map((e) => e.workspace_id))].sort();
      // Wait out endpoint registrations in flight for these workspaces (see
      // WebhookEndpointsService.createEndpoint): the match below then sees every endpoint whose
      // created_at can be at or before one of these events.
      await m.query(
        `SELECT pg_advisory_xact_lock_shared($1, hashtext(w)) FROM unnest($2::text[]) AS w`,
        [ENDPOINTS_LOCK_CLASS, workspaceIds],
      );
      // The fan-out (matchEndpoints, src/webhooks/webhook-endpoint.repository.ts).
      const matches = await matchEndpoints(
        m,
        events.map((e) => e.id),
      );
      const rows = matches.map((x) => ({
        id: newId('whd'),
        workspaceId: x.workspace_id,
        endpointId: x.endpoint_id,
        eventId: x.event_id,
        type: x.type,
      }));
      const now = this.clock.now();
      if (rows.length > 0) {
        created = await insertDeliveries(m, rows, now);
      }
      this.logger.debug({ events: events.length, deliveries: rows.length }, 'outbox dispatched');
      return events.length;
    });
    await this.enqueueFirstAttempts(created);
    return dispatched;
  }

  /**
   * Each new delivery's first job, once the deliveries have committed: a worker never meets a
   * delivery that is not there yet, and no row lock or connection is held across a Redis call. A
   * job that fails to enqueue (Redis gone since the `ready` check) is not lost: its delivery is
   * pending and due, and `resumeStalled` enqueues it after STALL_GRACE_MS.
   */
  private async enqueueFirstAttempts(created: { id: string; event_id: string }[]): Promise<void> {
    await Promise.all(
      created.map((d) =>
        this.producer.enqueue({
          deliveryId: d.id,
          eventId: d.event_id,
          trigger: 'scheduled',
          seq: 1,
        }),
      ),
    ).catch((err: Error) =>
      this.logger.warn(
        { deliveries: created.length, err: err.message },
        'first attempts not enqueued; the stalled-delivery sweep will resume them',
      ),
    );
  }

  /**
   * Postgres says what is owed; Redis only wakes workers. Re-enqueues (same deterministic job id,
   * so a job still in Redis makes this a no-op) scheduled attempts overdue by STALL_GRACE_MS on
   * enabled endpoints, and redeliveries requested but not yet made.
   */
  async resumeStalled(): Promise<number> {
    if (!this.producer.ready) {
      return 0;
    }
    const cutoff = new Date(this.clock.now().getTime() - STALL_GRACE_MS);
    const stalled = await stalledDeliveries(this.tx.manager, cutoff);
    for (const d of stalled) {
      if (d.scheduled_due) {
        await this.producer.enqueue({
          deliveryId: d.id,
          eventId: d.event_id,
          trigger: 'scheduled',
          seq: d.scheduled_attempts + 1,
        });
      }
      if (d.manual_attempts < d.manual_requests) {
        await this.producer.enqueue({
          deliveryId: d.id,
          eventId: d.event_id,
          trigger: 'manual',
          seq: d.manual_attempts + 1,
        });
      }
    }
    if (stalled.length > 0) {
      this.logger.debug({ deliveries: stalled.length }, 'overdue webhook deliveries re-enqueued');
    }
    return stalled.length;
  }
}
