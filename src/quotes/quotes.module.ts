import { Module } from '@nestjs/common';

import { AccountsModule } from '../accounts/accounts.module';
import { MandatesStoreModule } from '../mandates/mandates-store.module';
import { PaymentsModule } from '../payments/payments.module';
import { SellerModule } from '../seller/seller.module';
import { QuotesController } from './quotes.controller';
import { QuotesService } from './quotes.service';
import { QuotesStoreModule } from './quotes-store.module';

/** Quotes (from a seller's offers, or free-form), quote payments through the pipeline. */
@Module({
  imports: [AccountsModule, MandatesStoreModule, PaymentsModule, QuotesStoreModule, SellerModule],
  controllers: [QuotesController],
  providers: [QuotesService],
  exports: [QuotesService],
})
export class QuotesModule {}
