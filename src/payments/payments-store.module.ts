import { Module } from '@nestjs/common';

import { PaymentIntentRepository } from './payment-intent.repository';
import { RailStatusCheckRepository } from './rail-status-check.repository';
import { RailTransferRepository } from './rail-transfer.repository';

/**
 * The owners of the payments module's money tables (docs/architecture.md "Table owners"), in a
 * module of their own so that every module that reads or writes an intent or a rail transfer
 * (refunds, receipts, orders, the gateway's webhooks, settlements, the seller's intents API)
 * imports them without importing the pipeline.
 */
@Module({
  providers: [PaymentIntentRepository, RailTransferRepository, RailStatusCheckRepository],
  exports: [PaymentIntentRepository, RailTransferRepository, RailStatusCheckRepository],
})
export class PaymentsStoreModule {}
