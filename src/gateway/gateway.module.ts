import { Module } from '@nestjs/common';

import { ChainsModule } from '../chains/chains.module';
import { MandatesModule } from '../mandates/mandates.module';
import { OpsModule } from '../ops/ops.module';
import { OutboxModule } from '../outbox/outbox.module';
import { PaymentsModule } from '../payments/payments.module';
import { RefundsModule } from '../refunds/refunds.module';
import { WebModule } from '../web/web.module';
import { CaptureRefundRepository } from './capture-refund.repository';
import { CaptureRefunds } from './capture-refunds';
import { GatewayEventsOpsController } from './gateway-events-ops.controller';
import { GatewayEventsReview } from './gateway-events-review.service';
import { GatewayOrderMatcher } from './gateway-order-matcher';
import { GatewayWebhooksController } from './gateway-webhooks.controller';
import { GatewayWebhooksService } from './gateway-webhooks.service';
import { MandateRegistration } from './mandate-registration';
import { ReserveBlockReleaser } from './reserve-blocks';

/**
 * The gateway rail's service side (docs/gateway.md "Going live on the gateway"): inbound webhooks
 * (GatewayWebhooksController / GatewayWebhooksService). The rail adapter itself
 * (gateway-rail.ts) and the client are provided by PaymentsModule, which picks the rail from
 * configuration; the reconciler is PaymentsModule's RailReconciler; the hosted page's gateway
 * glue lives in src/public-pay and registers with GatewayWebhooksService. ReserveBlockReleaser
 * gives back what is left of a Reserve Pay block when its mandate ends; MandateRegistration
 * registers a mandate with the gateway once a person authorises it. CaptureRefunds refunds in
 * full every captured payment the service cannot settle on one intent. GatewayEventsOpsController
 * lists the inbound events an operator should look at (/app/ops/gateway-events).
 */
@Module({
  imports: [
    OutboxModule,
    PaymentsModule,
    RefundsModule,
    MandatesModule,
    ChainsModule,
    OpsModule,
    WebModule,
  ],
  controllers: [GatewayWebhooksController, GatewayEventsOpsController],
  providers: [
    GatewayWebhooksService,
    GatewayEventsReview,
    GatewayOrderMatcher,
    ReserveBlockReleaser,
    MandateRegistration,
    CaptureRefunds,
    CaptureRefundRepository,
  ],
  exports: [GatewayWebhooksService, ReserveBlockReleaser, CaptureRefunds],
})
export class GatewayModule {}
