import { Module } from '@nestjs/common';

import { PaymentsModule } from '../payments/payments.module';
import { RefundsModule } from '../refunds/refunds.module';
import { GatewayWebhooksController } from './gateway-webhooks.controller';
import { GatewayWebhooksService } from './gateway-webhooks.service';
import { ReserveBlockReleaser } from './reserve-blocks';

/**
 * The gateway rail's service side (README "Going live on the gateway"): inbound webhooks
 * (GatewayWebhooksController / GatewayWebhooksService). The rail adapter itself
 * (gateway-rail.ts) and the client are provided by PaymentsModule, which picks the rail from
 * configuration; the reconciler is PaymentsModule's RailReconciler; the hosted page's gateway
 * glue lives in src/public-pay and registers with GatewayWebhooksService. ReserveBlockReleaser
 * gives back what is left of a Reserve Pay block when its mandate ends.
 */
@Module({
  imports: [PaymentsModule, RefundsModule],
  controllers: [GatewayWebhooksController],
  providers: [GatewayWebhooksService, ReserveBlockReleaser],
  exports: [GatewayWebhooksService, ReserveBlockReleaser],
})
export class GatewayModule {}
