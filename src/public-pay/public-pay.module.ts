import { Module } from '@nestjs/common';

import { GatewayModule } from '../gateway/gateway.module';
import { PaymentsModule } from '../payments/payments.module';
import { QuotesModule } from '../quotes/quotes.module';
import { HostedCheckoutRepository } from './hosted-checkout.repository';
import { PayAssets } from './pay-assets';
import { PayFormGuard } from './pay-form.guard';
import { PayPageHeadersInterceptor } from './pay-page-headers.interceptor';
import { PayPagesController } from './pay-pages.controller';
import { PaymentLinksController } from './payment-links.controller';
import { PaymentLinksService } from './payment-links.service';
import { PublicPayController } from './public-pay.controller';
import { PublicPayService } from './public-pay.service';

/**
 * The hosted payment page and the public pay API (spec §1, §2, §3, §4 "Public pay API"): a
 * person pays a quote addressed to their agent from a link, with no sign-in, through the one
 * payment pipeline. States of a hosted checkout: hosted-checkout.state.ts. Gateway payment links
 * for quotes (docs/gateway.md "Payment links") are hosted checkouts of channel `link`
 * (PaymentLinksController, PaymentLinksService) and settle through the same code.
 */
@Module({
  imports: [PaymentsModule, QuotesModule, GatewayModule],
  controllers: [PublicPayController, PayPagesController, PaymentLinksController],
  providers: [
    PublicPayService,
    PaymentLinksService,
    HostedCheckoutRepository,
    PayAssets,
    PayFormGuard,
    PayPageHeadersInterceptor,
  ],
  exports: [PublicPayService],
})
export class PublicPayModule {}
