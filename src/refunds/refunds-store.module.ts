import { Module } from '@nestjs/common';

import { RefundRepository } from './refund.repository';

/**
 * The owner of refunds (docs/architecture.md "Table owners"), in a module of its own so that
 * orders (which the refunds module itself imports) read refunds through it.
 */
@Module({
  providers: [RefundRepository],
  exports: [RefundRepository],
})
export class RefundsStoreModule {}
