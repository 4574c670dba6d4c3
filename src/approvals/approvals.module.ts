import { Module } from '@nestjs/common';

import { WebModule } from '../web/web.module';
import { ApprovalRepository } from './approval.repository';
import { ApprovalExpiryProducer } from './approval-expiry.producer';
import { ApprovalTimeoutProcessor } from './approval-timeout.processor';
import { ApprovalsService } from './approvals.service';

/** ApprovalsService and its timeout. The inbox page (approvals-page.controller.ts) is declared in AppPagesModule. */
@Module({
  imports: [WebModule],
  providers: [
    ApprovalsService,
    ApprovalRepository,
    ApprovalExpiryProducer,
    ApprovalTimeoutProcessor,
  ],
  exports: [ApprovalsService],
})
export class ApprovalsModule {}
