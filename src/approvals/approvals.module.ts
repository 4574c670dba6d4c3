import { Module } from '@nestjs/common';
import { WebModule } from '../web/web.module';
import { ApprovalTimeoutProcessor } from './approval-timeout.processor';
import { ApprovalsPageController } from './approvals-page.controller';
import { ApprovalsService } from './approvals.service';

@Module({
  imports: [WebModule],
  controllers: [ApprovalsPageController],
  providers: [ApprovalsService, ApprovalTimeoutProcessor],
  exports: [ApprovalsService],
})
export class ApprovalsModule {}
