import { Process, Processor } from '@nestjs/bull';
import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';

import { APP_CONFIG, AppConfig } from '../config/app.config';
import {
  RECONCILE_SETTLEMENTS_JOB,
  SettlementReconcileProducer,
  SETTLEMENTS_QUEUE,
} from './settlement-reconcile.producer';
import { type ReconcileSummary, SettlementReconciler } from './settlement-reconciler';

/**
 * The repeatable Bull job that pulls the settlement report every SETTLEMENT_RECONCILE_EVERY_MS
 * (RAIL=gateway and RUN_WORKERS only). Tests and operators call SettlementReconciler.run directly.
 */
@Processor(SETTLEMENTS_QUEUE)
@Injectable()
export class SettlementReconcileProcessor implements OnApplicationBootstrap {
  constructor(
    private readonly reconciler: SettlementReconciler,
    private readonly producer: SettlementReconcileProducer,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.runWorkers || this.config.rail !== 'gateway') {
      return;
    }
    await this.producer.repeatEvery(this.config.settlements.reconcileEveryMs);
  }

  @Process(RECONCILE_SETTLEMENTS_JOB)
  reconcile(): Promise<ReconcileSummary> {
    return this.reconciler.run();
  }
}
