import { Module } from '@nestjs/common';

import { MandatesModule } from '../mandates/mandates.module';
import { PaymentsModule } from '../payments/payments.module';
import { RefundsModule } from '../refunds/refunds.module';
import { GatewayWebhooksController } from './gateway-webhooks.controller';
import { GatewayWebhooksService } from './gateway-webhooks.service';
import { MandateRegistration } from './mandate-registration';
import { ReserveBlockReleaser } from './reserve-blocks';

/**
 * The gateway rail's service side (README "Going live on the gateway"): inbound webhooks
 * (GatewayWebhooksController / GatewayWebhooksService). The rail adapter itself
 * (gateway-rail.ts) and the client are provided by PaymentsModule, which picks the rail from
 * configuration; the reconciler is PaymentsModule's RailReconciler; the hosted page's gateway
 * glue lives in src/public-pay and registers with GatewayWebhooksService. ReserveBlockReleaser
 * gives back what is left of a Reserve Pay block when its mandate ends; MandateRegistration
 * registers a mandate with the gateway once a person authorises it.
 */
@Module({
  imports: [PaymentsModule, RefundsModule, MandatesModule],
  controllers: [GatewayWebhooksController],
  providers: [GatewayWebhooksService, ReserveBlockReleaser, MandateRegistration],
  exports: [GatewayWebhooksService, ReserveBlockReleaser],
})
export class GatewayModule {}
