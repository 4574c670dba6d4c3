import { Module } from '@nestjs/common';

import { MandatesModule } from '../mandates/mandates.module';
import { DelegatePaymentController } from './delegate-payment.controller';
import { DelegatePaymentService } from './delegate-payment.service';
import { TokensService } from './tokens.service';

/** PSP role of ACP: minting delegated tokens (DelegatePaymentService) and spending/revoking them (TokensService). */
@Module({
  imports: [MandatesModule],
  controllers: [DelegatePaymentController],
  providers: [TokensService, DelegatePaymentService],
  exports: [TokensService, DelegatePaymentService],
})
export class DelegatePaymentModule {}
