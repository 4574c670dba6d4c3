import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bull';

import { ExpireApprovalJob, JOB_PRESETS, JOBS, QUEUES } from '../common/queues/queues';

/** Job id of an approval's expiry: one waiting job per approval. */
export function approvalExpiryJobId(job: ExpireApprovalJob): string {
  return `expire-approval-${job.approvalId}`;
}

/**
 * The only caller of `add` on the approvals queue: the delayed job that expires an unanswered
 * approval at its expires_at (ApprovalTimeoutProcessor). ApprovalsService calls it after commit.
 */
@Injectable()
export class ApprovalExpiryProducer {
  constructor(@InjectQueue(QUEUES.approvals) private readonly queue: Queue) {}

  async enqueue(job: ExpireApprovalJob, delayMs: number): Promise<void> {
    await this.queue.add(JOBS.expireApproval, job satisfies ExpireApprovalJob, {
      ...JOB_PRESETS.approvalExpiry,
      jobId: approvalExpiryJobId(job),
      delay: delayMs,
    });
  }
}
