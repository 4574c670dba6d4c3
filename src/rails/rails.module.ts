import { Module } from '@nestjs/common';

import { Clock } from '../common/clock';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { Tx } from '../database/tx';
import { GatewayRepository } from './gateway/gateway.repository';
import type { GatewayClient } from './gateway/gateway-client';
import { GATEWAY_CLIENT, gatewayClientOf, GatewayRail } from './gateway/gateway-rail';
import { PAYMENT_RAIL, PaymentRail } from './payment-rail';
import { SandboxRail } from './sandbox-rail';

/**
 * The rails below the payment pipeline (docs/architecture.md "Module map"): the port
 * (`PAYMENT_RAIL`), bound by configuration (RAIL) to the sandbox rail or to the gateway adapter
 * over the gateway's HTTP API (GATEWAY_* variables; docs/gateway.md "Going live on the gateway"),
 * the gateway's client (`GATEWAY_CLIENT`, null off the gateway) and the owner of its tables
 * (`GatewayRepository`). Going live is configuration, not code. The gateway's webhooks, which
 * drive the pipeline, sit above in src/gateway.
 */
@Module({
  providers: [
    GatewayRepository,
    { provide: GATEWAY_CLIENT, inject: [APP_CONFIG], useFactory: gatewayClientOf },
    {
      provide: PAYMENT_RAIL,
      inject: [APP_CONFIG, GATEWAY_CLIENT, GatewayRepository, Tx, Clock],
      useFactory: (
        config: AppConfig,
        client: GatewayClient | null,
        store: GatewayRepository,
        tx: Tx,
        clock: Clock,
      ): PaymentRail =>
        config.rail === 'gateway' && client
          ? new GatewayRail(client, store, tx, config, clock)
          : new SandboxRail(),
    },
  ],
  exports: [PAYMENT_RAIL, GATEWAY_CLIENT, GatewayRepository],
})
export class RailsModule {}
