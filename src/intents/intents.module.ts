import { Module } from '@nestjs/common';

import { PaymentsStoreModule } from '../payments/payments-store.module';
import { ReceiptsModule } from '../receipts/receipts.module';
import { RefundsModule } from '../refunds/refunds.module';
import { IntentsController } from './intents.controller';
import { IntentsService } from './intents.service';

@Module({
  imports: [PaymentsStoreModule, ReceiptsModule, RefundsModule],
  controllers: [IntentsController],
  providers: [IntentsService],
  exports: [IntentsService],
})
export class IntentsModule {}
