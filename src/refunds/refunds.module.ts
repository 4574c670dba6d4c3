import { Module } from '@nestjs/common';

import { ApprovalsModule } from '../approvals/approvals.module';
import { OrdersModule } from '../orders/orders.module';
import { PaymentsModule } from '../payments/payments.module';
import { ReceiptsModule } from '../receipts/receipts.module';
import { RefundRepository } from './refund.repository';
import { RefundsController } from './refunds.controller';
import { RefundsService } from './refunds.service';

@Module({
  imports: [ApprovalsModule, PaymentsModule, ReceiptsModule, OrdersModule],
  controllers: [RefundsController],
  providers: [RefundsService, RefundRepository],
  exports: [RefundsService],
})
export class RefundsModule {}
