import { Process, Processor } from '@nestjs/bull';
import type { Job } from 'bull';

import { DebitChargeJob, JOBS, QUEUES } from '../common/queues/queues';
import { RecurringChargesService } from './recurring-charges.service';

/**
 * The delayed job at a charge's debit_at. It re-reads everything under the charge's lock
 * (RecurringChargesService.attempt): a cancelled or not-yet-due charge is left alone, one that
 * falls in a blocked window is moved to the window's end and queued again.
 */
@Processor(QUEUES.recurring)
export class RecurringChargeProcessor {
  constructor(private readonly charges: RecurringChargesService) {}

  @Process(JOBS.debitRecurringCharge)
  debit(job: Job<DebitChargeJob>): Promise<string> {
    return this.charges.attempt(job.data.chargeId);
  }
}
