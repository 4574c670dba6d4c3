import { Module } from '@nestjs/common';
import { PaymentsModule } from '../payments/payments.module';
import { OfferCatalogRepository } from './offer-catalog.repository';
import { QuoteRepository } from './quote.repository';
import { QuotesController } from './quotes.controller';
import { QuotesService } from './quotes.service';

@Module({
  imports: [PaymentsModule],
  controllers: [QuotesController],
  providers: [QuotesService, QuoteRepository, OfferCatalogRepository],
  exports: [QuotesService],
})
export class QuotesModule {}
