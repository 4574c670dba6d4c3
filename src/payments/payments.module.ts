import { Module } from '@nestjs/common';

import { ApprovalsModule } from '../approvals/approvals.module';
import { SweeperModule } from '../common/sweeper/sweeper.module';
import { ReceiptsModule } from '../receipts/receipts.module';
import { OutboxService } from './outbox.service';
import { PAYMENT_RAIL } from './payment-rail';
import { PaymentSources } from './payment-sources';
import { PaymentsService } from './payments.service';
import { SandboxRail } from './sandbox-rail';

@Module({
  imports: [ApprovalsModule, ReceiptsModule, SweeperModule],
  providers: [
    PaymentsService,
    PaymentSources,
    OutboxService,
    { provide: PAYMENT_RAIL, useClass: SandboxRail },
  ],
  exports: [PaymentsService, PaymentSources, OutboxService, PAYMENT_RAIL],
})
export class PaymentsModule {}
