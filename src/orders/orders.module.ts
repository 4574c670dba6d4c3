import { Module } from '@nestjs/common';

import { CheckoutStoreModule } from '../checkout/checkout-store.module';
import { OutboxModule } from '../outbox/outbox.module';
import { PaymentsStoreModule } from '../payments/payments-store.module';
import { RefundsStoreModule } from '../refunds/refunds-store.module';
import { OrdersController } from './orders.controller';
import { OrdersService } from './orders.service';

/**
 * ACP orders: the Order mapper, order events into the outbox (called by checkout completion and
 * refunds in their transactions) and GET /acp/orders/{id}. Delivery is src/webhooks'.
 */
@Module({
  imports: [OutboxModule, PaymentsStoreModule, CheckoutStoreModule, RefundsStoreModule],
  controllers: [OrdersController],
  providers: [OrdersService],
  exports: [OrdersService],
})
export class OrdersModule {}
