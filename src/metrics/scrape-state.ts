import { Inject, Injectable, Logger } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Queue } from 'bull';
import { DataSource } from 'typeorm';

import { approvalParts } from '../approvals/approval.repository';
import { Clock } from '../common/clock';
import { allQueues } from '../common/queues/all-queues';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { sql, textOf } from '../database/fragment';
import { captureRefundParts } from '../gateway/capture-refund.repository';
import { outboxParts } from '../outbox/outbox.repository';
import { gatewayParts, REVIEW_OUTCOMES } from '../rails/gateway/gateway.repository';
import { deliveryParts } from '../webhooks/webhook-delivery.repository';
import { APPROVAL_KINDS, QUEUE_JOB_STATES } from './metric-names';
import { MetricsRegistry } from './metrics-registry';

/** A scrape never waits longer than this on Postgres or Redis; what did not answer is left out. */
const SOURCE_TIMEOUT_MS = 2000;

async function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

interface StateRow {
  approvals: { kind: string; waiting: number; oldest: string }[] | null;
  outbox_waiting: number;
  outbox_oldest: string | null;
  deliveries_pending: number;
  captures_awaiting: number;
  captures_oldest: string | null;
  gateway_events_review: { outcome: string; n: number }[] | null;
}

/** The pg Pool behind TypeORM's postgres driver (its counters are in-memory). */
interface PgPool {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/**
 * Gauges of what is true now, read when Prometheus scrapes (never on a request path):
 * - one Postgres round trip over partial indexes that hold only the rows in question: approvals
 *   waiting (`approvals_kind_subject_id_pending_key`, WHERE status = 'pending'), undispatched
 *   outbox events (the small table `outbox_pending`), pending webhook deliveries
 *   (`webhook_deliveries_due_idx`), captured gateway payments awaiting their refund
 *   (`gateway_capture_refunds_open_idx`), gateway events for review
 *   (`gateway_events_review_idx`). These sets stay small while things work, so the reads stay
 *   cheap; when they grow, that is what the gauges are there to show.
 * - Bull job counts per queue (a few Redis commands per queue);
 * - the pg pool's own counters (no I/O).
 * Ages are measured against the service clock, like the rows' timestamps.
 */
@Injectable()
export class ScrapeState {
  private readonly logger = new Logger(ScrapeState.name);
  private inFlight: Promise<void> | null = null;
  private queues: Queue[] | null = null;

  constructor(
    private readonly metrics: MetricsRegistry,
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly moduleRef: ModuleRef,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Refreshes every scrape-time gauge; concurrent scrapes share one refresh. */
  refresh(): Promise<void> {
    this.inFlight ??= Promise.all([this.fromPostgres(), this.fromRedis()])
      .then(() => this.fromPool())
      .finally(() => {
        this.inFlight = null;
      });
    return this.inFlight;
  }

  private async fromPostgres(): Promise<void> {
    const m = this.metrics;
    try {
      const [row] = await within(
        this.dataSource.query<StateRow[]>(
          textOf(sql`SELECT ${approvalParts.pendingByKind()} AS approvals,
                  ${outboxParts.waitingCount()} AS outbox_waiting,
                  ${outboxParts.oldestWaiting()} AS outbox_oldest,
                  ${deliveryParts.pendingCount()} AS deliveries_pending,
                  ${captureRefundParts.awaitingCount()} AS captures_awaiting,
                  ${captureRefundParts.oldestAwaiting()} AS captures_oldest,
                  ${gatewayParts.eventsForReviewByOutcome()} AS gateway_events_review`),
        ),
        SOURCE_TIMEOUT_MS,
      );
      const now = this.clock.now().getTime();
      const ageOf = (at: string | null) =>
        at === null ? 0 : Math.max(0, (now - new Date(at).getTime()) / 1000);
      const approvals = new Map((row.approvals ?? []).map((a) => [a.kind, a]));
      m.approvalsWaiting.reset();
      m.approvalsOldestAge.reset();
      for (const kind of new Set<string>([...APPROVAL_KINDS, ...approvals.keys()])) {
        const a = approvals.get(kind);
        m.approvalsWaiting.set({ kind }, a?.waiting ?? 0);
        m.approvalsOldestAge.set({ kind }, ageOf(a?.oldest ?? null));
      }
      m.outboxUndispatched.set(row.outbox_waiting);
      m.outboxLag.set(ageOf(row.outbox_oldest));
      m.webhookPending.set(row.deliveries_pending);
      m.capturesAwaitingRefund.set(row.captures_awaiting);
      m.captureRefundOldestAge.set(ageOf(row.captures_oldest));
      const review = new Map((row.gateway_events_review ?? []).map((r) => [r.outcome, r.n]));
      m.gatewayEventsForReview.reset();
      for (const outcome of REVIEW_OUTCOMES) {
        m.gatewayEventsForReview.set({ outcome }, review.get(outcome) ?? 0);
      }
      m.sourceUp.set({ source: 'postgres' }, 1);
    } catch (err) {
      for (const g of [m.approvalsWaiting, m.approvalsOldestAge, m.outboxUndispatched]) {
        g.reset();
      }
      m.outboxLag.reset();
      m.webhookPending.reset();
      m.capturesAwaitingRefund.reset();
      m.captureRefundOldestAge.reset();
      m.gatewayEventsForReview.reset();
      m.sourceUp.set({ source: 'postgres' }, 0);
      this.logger.warn({ err: (err as Error).message }, 'metrics: Postgres read failed');
    }
  }

  private async fromRedis(): Promise<void> {
    const m = this.metrics;
    this.queues ??= allQueues(this.moduleRef);
    try {
      const perQueue = await within(
        Promise.all(
          this.queues.map(async (q) => {
            // A disconnected client would queue the commands until Redis returns: answer now.
            if (q.client.status !== 'ready') {
              throw new Error(`Redis connection ${q.client.status}`);
            }
            return { queue: q.name, counts: await q.getJobCounts() };
          }),
        ),
        SOURCE_TIMEOUT_MS,
      );
      m.queueJobs.reset();
      for (const { queue, counts } of perQueue) {
        for (const state of QUEUE_JOB_STATES) {
          m.queueJobs.set(
            { queue, state },
            (counts as unknown as Record<string, number>)[state] ?? 0,
          );
        }
      }
      m.sourceUp.set({ source: 'redis' }, 1);
    } catch (err) {
      m.queueJobs.reset();
      m.sourceUp.set({ source: 'redis' }, 0);
      this.logger.warn({ err: (err as Error).message }, 'metrics: Redis read failed');
    }
  }

  private fromPool(): void {
    const m = this.metrics;
    const pool = (this.dataSource.driver as unknown as { master?: PgPool }).master;
    m.dbPoolMax.set(this.config.databasePoolMax);
    if (!pool) {
      return;
    }
    m.dbPoolConnections.set({ state: 'idle' }, pool.idleCount);
    m.dbPoolConnections.set({ state: 'busy' }, pool.totalCount - pool.idleCount);
    m.dbPoolWaiting.set(pool.waitingCount);
  }
}
