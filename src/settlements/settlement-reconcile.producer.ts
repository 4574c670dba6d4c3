import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bull';

import { JOB_PRESETS } from '../common/queues/queues';

/** The settlements queue, registered by SettlementsModule (only with this module). */
export const SETTLEMENTS_QUEUE = 'settlements';
export const RECONCILE_SETTLEMENTS_JOB = 'reconcile-settlements';

/**
 * The only caller of `add` on the settlements queue: the repeatable report pull
 * (SettlementReconcileProcessor). One repeat, under a fixed job id, whoever starts it.
 */
@Injectable()
export class SettlementReconcileProducer {
  constructor(@InjectQueue(SETTLEMENTS_QUEUE) private readonly queue: Queue) {}

  async repeatEvery(everyMs: number): Promise<void> {
    await this.queue.add(
      RECONCILE_SETTLEMENTS_JOB,
      {},
      {
        ...JOB_PRESETS.settlementReconcile,
        jobId: RECONCILE_SETTLEMENTS_JOB,
        repeat: { every: everyMs },
      },
    );
  }
}
