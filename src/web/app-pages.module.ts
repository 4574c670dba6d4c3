import { Module } from '@nestjs/common';

import { AccountsModule } from '../accounts/accounts.module';
import { ApprovalsModule } from '../approvals/approvals.module';
import { ApprovalsPageController } from '../approvals/approvals-page.controller';
import { ChainsModule } from '../chains/chains.module';
import { CheckoutStoreModule } from '../checkout/checkout-store.module';
import { MandatesStoreModule } from '../mandates/mandates-store.module';
import { PaymentsModule } from '../payments/payments.module';
import { ProtocolKeysModule } from '../protocol-keys/protocol-keys.module';
import { QuotesStoreModule } from '../quotes/quotes-store.module';
import { RefundsModule } from '../refunds/refunds.module';
import { RefundsStoreModule } from '../refunds/refunds-store.module';
import { AppHomeController } from './app-home.controller';
import { AppHomeService } from './app-home.service';
import { AppNotFoundController } from './app-not-found.controller';
import { AppReadModel } from './app-read-model';
import { AppReceiptsController } from './app-receipts.controller';
import { AppReceiptsService } from './app-receipts.service';
import { ApprovalCards } from './approval-cards';
import { ApprovalsPagesService } from './approvals-pages.service';
import { FaviconController } from './favicon.controller';
import { WebModule } from './web.module';

/**
 * The person's pages that read across the domain (home overview, approvals inbox, receipts,
 * developer console). The stylesheet views/assets/app.css is served as /app/assets/app.css by the
 * static middleware in app.setup.ts. Kept apart from WebModule, which the domain
 * modules import for sessions and layout, so these pages can use PaymentsService without a cycle.
 */
@Module({
  imports: [
    WebModule,
    AccountsModule,
    ApprovalsModule,
    PaymentsModule,
    ChainsModule,
    ProtocolKeysModule,
    MandatesStoreModule,
    CheckoutStoreModule,
    QuotesStoreModule,
    RefundsStoreModule,
    RefundsModule,
  ],
  controllers: [
    AppHomeController,
    ApprovalsPageController,
    AppReceiptsController,
    FaviconController,
  ],
  providers: [
    AppReadModel,
    ApprovalCards,
    ApprovalsPagesService,
    AppHomeService,
    AppReceiptsService,
  ],
  exports: [AppReadModel, ApprovalCards],
})
export class AppPagesModule {}

/** The HTML 404 for unknown paths under /app. Import it last in AppModule (routes match in registration order). */
@Module({ controllers: [AppNotFoundController] })
export class AppNotFoundModule {}
