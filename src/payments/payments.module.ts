import { Module } from '@nestjs/common';

import { AccountsModule } from '../accounts/accounts.module';
import { ApprovalsModule } from '../approvals/approvals.module';
import { SweeperModule } from '../common/sweeper/sweeper.module';
import { TokensStoreModule } from '../delegate-payment/tokens-store.module';
import { MandatesStoreModule } from '../mandates/mandates-store.module';
import { OutboxModule } from '../outbox/outbox.module';
import { RailsModule } from '../rails/rails.module';
import { ReceiptsModule } from '../receipts/receipts.module';
import { PaymentSources } from './payment-sources';
import { PaymentsService } from './payments.service';
import { PaymentsStoreModule } from './payments-store.module';
import { RailReconcileProducer } from './rail-reconcile.producer';
import { RailReconcileProcessor, RailReconciler } from './rail-reconciler';
import { StatusCheckPacing } from './status-check-pacing';
import { WaitingPayments } from './waiting-payments.service';

/**
 * The payment pipeline, above the rails (RailsModule binds the rail by configuration) and the
 * outbox it writes intent.settled to (OutboxModule). It re-exports RailsModule for the modules
 * that call the rail or the gateway's client around the pipeline (refunds, the hosted page, the
 * gateway's webhooks).
 */
@Module({
  imports: [
    AccountsModule,
    ApprovalsModule,
    MandatesStoreModule,
    OutboxModule,
    PaymentsStoreModule,
    RailsModule,
    ReceiptsModule,
    SweeperModule,
    TokensStoreModule,
  ],
  providers: [
    PaymentsService,
    WaitingPayments,
    PaymentSources,
    RailReconciler,
    RailReconcileProducer,
    RailReconcileProcessor,
    StatusCheckPacing,
  ],
  exports: [
    PaymentsService,
    WaitingPayments,
    PaymentsStoreModule,
    PaymentSources,
    RailReconciler,
    StatusCheckPacing,
    RailsModule,
  ],
})
export class PaymentsModule {}
