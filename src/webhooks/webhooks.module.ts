import { Module } from '@nestjs/common';

import { AccountsModule } from '../accounts/accounts.module';
import { SweeperModule } from '../common/sweeper/sweeper.module';
import { EndpointKindSigners } from './endpoint-kind-signers';
import { EventsController } from './events.controller';
import { EventsService } from './events.service';
import { OrderEndpointsController } from './order-endpoints.controller';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookDeliveryProcessor } from './webhook-delivery.processor';
import { WebhookDeliveryProducer } from './webhook-delivery.producer';
import { WebhookDeliveryRepository } from './webhook-delivery.repository';
import { WebhookDispatcher } from './webhook-dispatcher';
import { WebhookEndpointRepository } from './webhook-endpoint.repository';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookSecrets } from './webhook-secrets';
import { WebhookSender } from './webhook-sender';
import { WebhooksController } from './webhooks.controller';

/**
 * Outbound webhooks: seller endpoints (Standard Webhooks, /v1) and agent platforms' ACP order
 * receivers (Merchant-Signature, /acp/webhooks/order_endpoints), one outbox dispatcher on the
 * Sweeper, one Bull delivery worker, and the event log. Reads outbox_events written by the payment pipeline;
 * never writes them.
 */
@Module({
  imports: [AccountsModule, SweeperModule],
  controllers: [WebhooksController, EventsController, OrderEndpointsController],
  providers: [
    WebhookEndpointRepository,
    WebhookDeliveryRepository,
    WebhookEndpointsService,
    WebhookDeliveriesService,
    WebhookDispatcher,
    WebhookDeliveryProducer,
    WebhookDeliveryProcessor,
    WebhookSender,
    WebhookSecrets,
    EventsService,
    EndpointKindSigners,
  ],
  exports: [WebhookEndpointsService, EndpointKindSigners],
})
export class WebhooksModule {}
