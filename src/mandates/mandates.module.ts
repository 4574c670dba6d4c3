import { Module } from '@nestjs/common';

import { AccountsModule } from '../accounts/accounts.module';
import { ChainsModule } from '../chains/chains.module';
import { CheckoutStoreModule } from '../checkout/checkout-store.module';
import { SweeperModule } from '../common/sweeper/sweeper.module';
import { TokensStoreModule } from '../delegate-payment/tokens-store.module';
import { OutboxModule } from '../outbox/outbox.module';
import { WebModule } from '../web/web.module';
import { MandateAmendmentRepository } from './mandate-amendment.repository';
import { MandateAmendmentPagesController } from './mandate-amendment-pages.controller';
import { MandateAmendmentPages } from './mandate-amendment-pages.service';
import { MandateAmendmentsController } from './mandate-amendments.controller';
import { MandateAmendmentsService } from './mandate-amendments.service';
import { MandateAuthorisationController } from './mandate-authorisation.controller';
import { MandatePagesService } from './mandate-pages.service';
import { MandateViews } from './mandate-views';
import { MandatesController } from './mandates.controller';
import { MandatesService } from './mandates.service';
import { MandatesStoreModule } from './mandates-store.module';

/** UPI mandates: the /v1 API, the person's authorisation page, and MandatesService for delegate_payment. */
@Module({
  imports: [
    WebModule,
    AccountsModule,
    MandatesStoreModule,
    TokensStoreModule,
    // The authorisation page of a one-time mandate lists its checkout's items.
    CheckoutStoreModule,
    // Amendments: the receipt chain, the buyer's events (OutboxRepository), the expiry sweep.
    ChainsModule,
    OutboxModule,
    SweeperModule,
  ],
  controllers: [
    MandatesController,
    MandateAuthorisationController,
    MandateAmendmentsController,
    MandateAmendmentPagesController,
  ],
  providers: [
    MandatesService,
    MandateViews,
    MandatePagesService,
    MandateAmendmentsService,
    MandateAmendmentRepository,
    MandateAmendmentPages,
  ],
  exports: [MandatesService, MandateViews, MandatePagesService],
})
export class MandatesModule {}
