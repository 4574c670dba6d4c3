import { Module } from '@nestjs/common';

import { ReceiptsModule } from '../receipts/receipts.module';
import { RefundsModule } from '../refunds/refunds.module';
import { IntentRepository } from './intent.repository';
import { IntentsController } from './intents.controller';
import { IntentsService } from './intents.service';

@Module({
  imports: [ReceiptsModule, RefundsModule],
  controllers: [IntentsController],
  providers: [IntentsService, IntentRepository],
  exports: [IntentsService],
})
export class IntentsModule {}
