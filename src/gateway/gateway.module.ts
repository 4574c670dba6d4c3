import { Module } from '@nestjs/common';

import { PaymentsModule } from '../payments/payments.module';
import { RefundsModule } from '../refunds/refunds.module';
import { GatewayWebhooksController } from './gateway-webhooks.controller';
import { GatewayWebhooksService } from './gateway-webhooks.service';

/**
 * The gateway rail's service side (README "Going live on the gateway"): inbound webhooks
 * (GatewayWebhooksController / GatewayWebhooksService). The rail adapter itself
 * (gateway-rail.ts) and the client are provided by PaymentsModule, which picks the rail from
 * configuration; the reconciler is PaymentsModule's RailReconciler; the hosted page's gateway
 * glue lives in src/public-pay and registers with GatewayWebhooksService.
 */
@Module({
  imports: [PaymentsModule, RefundsModule],
  controllers: [GatewayWebhooksController],
  providers: [GatewayWebhooksService],
  exports: [GatewayWebhooksService],
})
export class GatewayModule {}
