import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bull';

import { DebitChargeJob, JOB_PRESETS, JOBS, QUEUES } from '../common/queues/queues';

/**
 * Job id of a charge's debit at one debit_at: a second enqueue for the same time is a no-op; a
 * charge deferred out of a blocked window gets a new job for its new time.
 */
export function recurringDebitJobId(job: DebitChargeJob, debitAt: Date): string {
  return `rch-${job.chargeId}-${debitAt.getTime()}`;
}

/**
 * The only caller of `add` on the recurring queue: the delayed job at a scheduled charge's
 * debit_at (RecurringChargeProcessor). RecurringChargesService calls it after commit.
 */
@Injectable()
export class RecurringDebitProducer {
  constructor(@InjectQueue(QUEUES.recurring) private readonly queue: Queue) {}

  async enqueue(job: DebitChargeJob, debitAt: Date, delayMs: number): Promise<void> {
    await this.queue.add(JOBS.debitRecurringCharge, job satisfies DebitChargeJob, {
      ...JOB_PRESETS.recurringDebit,
      jobId: recurringDebitJobId(job, debitAt),
      delay: delayMs,
    });
  }
}
