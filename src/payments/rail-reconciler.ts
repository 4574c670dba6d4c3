import { Process, Processor } from '@nestjs/bull';
import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { Job } from 'bull';

import { Clock } from '../common/clock';
import { JOBS, QUEUES, ReconcileRailJob } from '../common/queues/queues';
import { Sweeper } from '../common/sweeper/sweeper';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { Tx } from '../database/tx';
import { RailReconcileProducer } from './rail-reconcile.producer';

export type ReconcileKind = ReconcileRailJob['kind'];

/** What the reconciler needs from the owner of one kind of rail operation (intents, refunds). */
export interface ReconcileHandler {
  /**
   * Claims rows left `processing` since before `olderThan` (only `id` when given): SELECT … FOR
   * UPDATE SKIP LOCKED and touch them, so no other instance asks about them for another interval.
   */
  claimDue(olderThan: Date, limit: number, id?: string): Promise<string[]>;
  /** Asks the rail about one claimed row and records a definite answer (never in a transaction). */
  resolve(id: string): Promise<void>;
}

const BATCH = 20;

/**
 * The reconciler (docs/architecture.md "Payment pipeline"): every intent or refund left
 * `processing` (the rail gave no definite answer, or the process died between the rail call and
 * the second transaction) is resolved by asking the rail, so a crash at any point ends in exactly
 * one outcome. Two triggers, one code path: a delayed Bull job scheduled when a request gives up
 * waiting (fast, but Redis may lose it) and a sweep over Postgres (`payments.reconcile-rail`,
 * every RAIL_RECONCILE_AFTER_MS at most 5 s apart), which also finds what a crashed process left.
 * A row is only asked about once it is older than RAIL_RECONCILE_AFTER_MS, longer than any rail
 * call may take, so a request still waiting on the rail is not raced; and the recording step is
 * idempotent anyway (PaymentsService.applyDebit, RefundsService.applyCredit).
 */
@Injectable()
export class RailReconciler implements OnModuleInit {
  private readonly logger = new Logger(RailReconciler.name);
  private readonly handlers = new Map<ReconcileKind, ReconcileHandler>();

  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly sweeper: Sweeper,
    private readonly jobs: RailReconcileProducer,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.sweeper.register('payments.reconcile-rail', () => this.sweep(), {
      everyMs: Math.min(5000, this.config.railReconcileAfterMs),
    });
  }

  register(kind: ReconcileKind, handler: ReconcileHandler): void {
    this.handlers.set(kind, handler);
  }

  /**
   * Asks again after RAIL_RECONCILE_AFTER_MS, or after `atLeastMs` when that is longer (an AutoPay
   * debit's next status check, StatusCheckPacing): a delayed job; fire and forget: if Redis is down
   * the sweep finds the row all the same.
   */
  schedule(kind: ReconcileKind, id: string, atLeastMs?: number): void {
    this.jobs
      .enqueue({ kind, id }, Math.max(this.config.railReconcileAfterMs, atLeastMs ?? 0))
      .catch((err: Error) =>
        this.logger.warn(
          { kind, id, err: err.message },
          'reconcile job not queued; the sweep will',
        ),
      );
  }

  /** Every kind: claim what is due and resolve it, one by one. Returns how many were asked about. */
  async sweep(): Promise<number> {
    let asked = 0;
    for (const [kind, handler] of this.handlers) {
      const ids = await this.claim(handler);
      for (const id of ids) {
        asked++;
        await this.resolveOne(kind, handler, id);
      }
    }
    return asked;
  }

  /** One row, if it is still due (the job's path). */
  async reconcile(kind: ReconcileKind, id: string): Promise<boolean> {
    const handler = this.handlers.get(kind);
    if (!handler) {
      return false;
    }
    const [claimed] = await this.claim(handler, id);
    if (!claimed) {
      return false;
    }
    await this.resolveOne(kind, handler, claimed);
    return true;
  }

  private claim(handler: ReconcileHandler, id?: string): Promise<string[]> {
    const olderThan = new Date(this.clock.now().getTime() - this.config.railReconcileAfterMs);
    return this.tx.run(() => handler.claimDue(olderThan, BATCH, id));
  }

  private async resolveOne(kind: ReconcileKind, handler: ReconcileHandler, id: string) {
    try {
      await handler.resolve(id);
    } catch (err) {
      this.logger.warn(
        { kind, id, err: (err as Error).message },
        'reconcile failed; retried later',
      );
    }
  }
}

/** The delayed job of RailReconciler.schedule. */
@Processor(QUEUES.payments)
export class RailReconcileProcessor {
  constructor(private readonly reconciler: RailReconciler) {}

  @Process(JOBS.reconcileRail)
  async reconcile(job: Job<ReconcileRailJob>): Promise<boolean> {
    return this.reconciler.reconcile(job.data.kind, job.data.id);
  }
}
