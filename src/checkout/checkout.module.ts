import { Module } from '@nestjs/common';

import { AccountsModule } from '../accounts/accounts.module';
import { ChainsModule } from '../chains/chains.module';
import { DelegatePaymentModule } from '../delegate-payment/delegate-payment.module';
import { OrdersModule } from '../orders/orders.module';
import { PaymentsModule } from '../payments/payments.module';
import { SellerModule } from '../seller/seller.module';
import { AppPagesModule } from '../web/app-pages.module';
import { AcpDocumentsController } from './acp-documents.controller';
import { CheckoutController } from './checkout.controller';
import { CheckoutService } from './checkout.service';
import { CheckoutCompletionService } from './checkout-completion.service';
import { CheckoutPagesController } from './checkout-pages.controller';
import { CheckoutStoreModule } from './checkout-store.module';
import { OrderPageService } from './order-page.service';

/** ACP merchant checkout, discovery, the payment handler documents and the order page. */
@Module({
  imports: [
    AccountsModule,
    SellerModule,
    PaymentsModule,
    DelegatePaymentModule,
    ChainsModule,
    AppPagesModule,
    OrdersModule,
    CheckoutStoreModule,
  ],
  controllers: [CheckoutController, AcpDocumentsController, CheckoutPagesController],
  providers: [CheckoutService, CheckoutCompletionService, OrderPageService],
  exports: [CheckoutService, CheckoutCompletionService],
})
export class CheckoutModule {}
