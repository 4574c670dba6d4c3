import { Module } from '@nestjs/common';

import { AccountsModule } from '../accounts/accounts.module';
import { DelegatePaymentModule } from '../delegate-payment/delegate-payment.module';
import { MandatesModule } from '../mandates/mandates.module';
import { PaymentsModule } from '../payments/payments.module';
import { ProtocolKeysModule } from '../protocol-keys/protocol-keys.module';
import { AppPagesModule } from '../web/app-pages.module';
import { WebModule } from '../web/web.module';
import { ConsentController } from './consent.controller';
import { ConsentService } from './consent.service';

/** The consent centre page of the app ({appUrl}/consent). */
@Module({
  imports: [
    WebModule,
    AppPagesModule,
    AccountsModule,
    ProtocolKeysModule,
    MandatesModule,
    DelegatePaymentModule,
    PaymentsModule,
  ],
  controllers: [ConsentController],
  providers: [ConsentService],
})
export class ConsentModule {}
