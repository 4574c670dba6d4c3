import { InjectQueue, Process, Processor } from '@nestjs/bull';
import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bull';

import { APP_CONFIG, AppConfig } from '../config/app.config';
import { type ReconcileSummary, SettlementReconciler } from './settlement-reconciler';

export const SETTLEMENTS_QUEUE = 'settlements';
export const RECONCILE_SETTLEMENTS_JOB = 'reconcile-settlements';

/**
 * The repeatable Bull job that pulls the settlement report every SETTLEMENT_RECONCILE_EVERY_MS
 * (RAIL=gateway and RUN_WORKERS only). Tests and operators call SettlementReconciler.run directly.
 */
@Processor(SETTLEMENTS_QUEUE)
@Injectable()
export class SettlementReconcileProcessor implements OnApplicationBootstrap {
  constructor(
    private readonly reconciler: SettlementReconciler,
    @InjectQueue(SETTLEMENTS_QUEUE) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.runWorkers || this.config.rail !== 'gateway') {
      return;
    }
    await this.queue.add(
      RECONCILE_SETTLEMENTS_JOB,
      {},
      {
        attempts: 1,
        removeOnComplete: true,
        removeOnFail: 100,
        jobId: RECONCILE_SETTLEMENTS_JOB,
        repeat: { every: this.config.settlements.reconcileEveryMs },
      },
    );
  }

  @Process(RECONCILE_SETTLEMENTS_JOB)
  reconcile(): Promise<ReconcileSummary> {
    return this.reconciler.run();
  }
}
