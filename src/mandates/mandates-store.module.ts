import { Module } from '@nestjs/common';

import { MandateRepository } from './mandate.repository';

/**
 * The owner of mandates (docs/architecture.md "Table owners"), in a module of its own so that the
 * payment pipeline and quotes use it without importing the mandates API (which imports the app's
 * pages, which import payments).
 */
@Module({
  providers: [MandateRepository],
  exports: [MandateRepository],
})
export class MandatesStoreModule {}
