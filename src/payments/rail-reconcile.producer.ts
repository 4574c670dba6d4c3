import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bull';

import { JOB_PRESETS, JOBS, QUEUES, ReconcileRailJob } from '../common/queues/queues';

/** Job id of a row's reconcile: one waiting job per row; a later request is folded into it. */
export function railReconcileJobId(job: ReconcileRailJob): string {
  return `reconcile-${job.kind}-${job.id}`;
}

/**
 * The only caller of `add` on the payments queue: the delayed job that asks the rail again about
 * a row its request left `processing` (RailReconcileProcessor). RailReconciler.schedule calls it.
 */
@Injectable()
export class RailReconcileProducer {
  constructor(@InjectQueue(QUEUES.payments) private readonly queue: Queue) {}

  async enqueue(job: ReconcileRailJob, delayMs: number): Promise<void> {
    await this.queue.add(JOBS.reconcileRail, job satisfies ReconcileRailJob, {
      ...JOB_PRESETS.railReconcile,
      jobId: railReconcileJobId(job),
      delay: delayMs,
    });
  }
}
