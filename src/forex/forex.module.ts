import { Module } from '@nestjs/common';

import { AccountsModule } from '../accounts/accounts.module';
import { ChainsModule } from '../chains/chains.module';
import { DocumentsModule } from '../documents/documents.module';
import { OutboxModule } from '../outbox/outbox.module';
import { WebModule } from '../web/web.module';
import { ForexController } from './forex.controller';
import { ForexService } from './forex.service';
import { ForexDeskService } from './forex-desk.service';
import { ForexDocumentsService } from './forex-documents.service';
import { ForexFileRepository } from './forex-file.repository';
import { IdempotencyKeyRequiredGuard, PanDigestGuard } from './forex-http';
import { ForexPagesController } from './forex-pages.controller';
import { ForexPagesService } from './forex-pages.service';
import { ForexPartnerRepository } from './forex-partner.repository';
import { ForexPartnersService } from './forex-partners.service';
import { ForexViews } from './forex-views';
import { PanVault } from './pan-vault';

/**
 * Forex files with AD Category-II partners (docs/forex.md "Forex files"): the agent API (ForexController
 * → ForexService), the person's declaration and the dealer desk (ForexPagesController →
 * ForexDeskService). ForexService's methods take the agent and plain inputs, so MCP tools wrap
 * them; ForexPartnersService registers partners (sandbox) and sets rates.
 */
@Module({
  imports: [AccountsModule, ChainsModule, DocumentsModule, OutboxModule, WebModule],
  controllers: [ForexController, ForexPagesController],
  providers: [
    ForexService,
    ForexPartnersService,
    ForexDeskService,
    ForexDocumentsService,
    ForexPagesService,
    ForexViews,
    ForexFileRepository,
    ForexPartnerRepository,
    PanVault,
    PanDigestGuard,
    IdempotencyKeyRequiredGuard,
  ],
  exports: [ForexService, ForexPartnersService, ForexDeskService, PanVault],
})
export class ForexModule {}
