import { Module } from '@nestjs/common';

import { AccountsModule } from '../accounts/accounts.module';
import { ApprovalsModule } from '../approvals/approvals.module';
import { SweeperModule } from '../common/sweeper/sweeper.module';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { Tx } from '../database/tx';
import { TokensStoreModule } from '../delegate-payment/tokens-store.module';
import type { GatewayClient } from '../gateway/gateway-client';
import { GATEWAY_CLIENT, gatewayClientOf, GatewayRail } from '../gateway/gateway-rail';
import { GatewayStore } from '../gateway/gateway-store';
import { MandatesStoreModule } from '../mandates/mandates-store.module';
import { ReceiptsModule } from '../receipts/receipts.module';
import { OutboxService } from './outbox.service';
import { PAYMENT_RAIL, PaymentRail } from './payment-rail';
import { PaymentSources } from './payment-sources';
import { PaymentsService } from './payments.service';
import { PaymentsStoreModule } from './payments-store.module';
import { RailReconcileProducer } from './rail-reconcile.producer';
import { RailReconcileProcessor, RailReconciler } from './rail-reconciler';
import { SandboxRail } from './sandbox-rail';
import { StatusCheckPacing } from './status-check-pacing';

/**
 * The payment pipeline. The rail is chosen by configuration (RAIL): the sandbox rail, or the
 * gateway adapter over the gateway's HTTP API (GATEWAY_* variables; docs/gateway.md "Going live on the
 * gateway"). Going live is configuration, not code.
 */
@Module({
  imports: [
    AccountsModule,
    ApprovalsModule,
    MandatesStoreModule,
    PaymentsStoreModule,
    ReceiptsModule,
    SweeperModule,
    TokensStoreModule,
  ],
  providers: [
    PaymentsService,
    PaymentSources,
    OutboxService,
    RailReconciler,
    RailReconcileProducer,
    RailReconcileProcessor,
    StatusCheckPacing,
    GatewayStore,
    { provide: GATEWAY_CLIENT, inject: [APP_CONFIG], useFactory: gatewayClientOf },
    {
      provide: PAYMENT_RAIL,
      inject: [APP_CONFIG, GATEWAY_CLIENT, GatewayStore, Tx],
      useFactory: (
        config: AppConfig,
        client: GatewayClient | null,
        store: GatewayStore,
        tx: Tx,
      ): PaymentRail =>
        config.rail === 'gateway' && client
          ? new GatewayRail(client, store, tx, config)
          : new SandboxRail(),
    },
  ],
  exports: [
    PaymentsService,
    PaymentsStoreModule,
    PaymentSources,
    OutboxService,
    RailReconciler,
    StatusCheckPacing,
    PAYMENT_RAIL,
    GATEWAY_CLIENT,
    GatewayStore,
  ],
})
export class PaymentsModule {}
