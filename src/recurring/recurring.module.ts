import { Module } from '@nestjs/common';

import { AccountsModule } from '../accounts/accounts.module';
import { ApprovalsModule } from '../approvals/approvals.module';
import { MandatesModule } from '../mandates/mandates.module';
import { OutboxModule } from '../outbox/outbox.module';
import { PaymentsModule } from '../payments/payments.module';
import { WebModule } from '../web/web.module';
import { AutopayNotices } from './autopay-notices';
import { AutopayPagesController } from './autopay-pages.controller';
import { RecurringChargeProcessor } from './recurring-charge.processor';
import { RecurringChargeRepository } from './recurring-charge.repository';
import { RecurringChargesController } from './recurring-charges.controller';
import { RecurringChargesService } from './recurring-charges.service';
import { RecurringDebitProducer } from './recurring-debit.producer';

/**
 * Recurring payments on UPI AutoPay mandates (docs/recurring.md "Recurring payments (UPI AutoPay)"): sellers'
 * scheduled charges, their pre-debit notices, the delayed debit job and sweep, and the person's
 * /app/autopay page. Imported in AppModule before AppNotFoundModule.
 */
@Module({
  imports: [
    AccountsModule,
    OutboxModule,
    PaymentsModule,
    MandatesModule,
    ApprovalsModule,
    WebModule,
  ],
  controllers: [RecurringChargesController, AutopayPagesController],
  providers: [
    RecurringChargeRepository,
    RecurringChargesService,
    RecurringChargeProcessor,
    RecurringDebitProducer,
    AutopayNotices,
  ],
  exports: [RecurringChargesService],
})
export class RecurringModule {}
