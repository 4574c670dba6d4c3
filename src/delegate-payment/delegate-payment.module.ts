import { Module } from '@nestjs/common';

import { CheckoutStoreModule } from '../checkout/checkout-store.module';
import { MandatesModule } from '../mandates/mandates.module';
import { DelegatePaymentController } from './delegate-payment.controller';
import { DelegatePaymentService } from './delegate-payment.service';
import { TokensService } from './tokens.service';
import { TokensStoreModule } from './tokens-store.module';

/** PSP role of ACP: minting delegated tokens (DelegatePaymentService) and spending/revoking them (TokensService). */
@Module({
  imports: [MandatesModule, TokensStoreModule, CheckoutStoreModule],
  controllers: [DelegatePaymentController],
  providers: [TokensService, DelegatePaymentService],
  exports: [TokensService, DelegatePaymentService],
})
export class DelegatePaymentModule {}
