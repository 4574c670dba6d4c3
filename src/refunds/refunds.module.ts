import { Module } from '@nestjs/common';

import { AccountsModule } from '../accounts/accounts.module';
import { ApprovalsModule } from '../approvals/approvals.module';
import { OrdersModule } from '../orders/orders.module';
import { OutboxModule } from '../outbox/outbox.module';
import { PaymentsModule } from '../payments/payments.module';
import { PaymentsStoreModule } from '../payments/payments-store.module';
import { ReceiptsModule } from '../receipts/receipts.module';
import { RefundsController } from './refunds.controller';
import { RefundsService } from './refunds.service';
import { RefundsStoreModule } from './refunds-store.module';

@Module({
  imports: [
    OutboxModule,
    AccountsModule,
    ApprovalsModule,
    PaymentsModule,
    PaymentsStoreModule,
    ReceiptsModule,
    OrdersModule,
    RefundsStoreModule,
  ],
  controllers: [RefundsController],
  providers: [RefundsService],
  exports: [RefundsService],
})
export class RefundsModule {}
