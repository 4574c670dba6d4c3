import { Process, Processor } from '@nestjs/bull';
import { Logger } from '@nestjs/common';
import type { Job } from 'bull';

import { ExpireApprovalJob, JOBS, QUEUES } from '../common/queues/queues';
import { ApprovalsService } from './approvals.service';

/** Expires an approval nobody answered; decided ones are skipped quietly. */
@Processor(QUEUES.approvals)
export class ApprovalTimeoutProcessor {
  private readonly logger = new Logger(ApprovalTimeoutProcessor.name);

  constructor(private readonly approvals: ApprovalsService) {}

  @Process(JOBS.expireApproval)
  async expire(job: Job<ExpireApprovalJob>): Promise<string> {
    const result = await this.approvals.expire(job.data.approvalId);
    this.logger.log({ approval_id: job.data.approvalId, result }, 'approval timeout');
    return result;
  }
}
