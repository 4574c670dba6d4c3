import { Module } from '@nestjs/common';

import { QuoteRepository } from './quote.repository';

/**
 * The owner of quotes (docs/architecture.md "Table owners"), in a module of its own so that the
 * app's pages read quotes without importing the quotes API.
 */
@Module({
  providers: [QuoteRepository],
  exports: [QuoteRepository],
})
export class QuotesStoreModule {}
