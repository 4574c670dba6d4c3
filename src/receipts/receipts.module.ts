import { Module } from '@nestjs/common';

import { ChainsModule } from '../chains/chains.module';
import { PaymentsStoreModule } from '../payments/payments-store.module';
import { ReceiptsController } from './receipts.controller';
import { ReceiptsService } from './receipts.service';

@Module({
  imports: [ChainsModule, PaymentsStoreModule],
  controllers: [ReceiptsController],
  providers: [ReceiptsService],
  exports: [ReceiptsService],
})
export class ReceiptsModule {}
