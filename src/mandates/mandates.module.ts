import { Module } from '@nestjs/common';

import { AccountsModule } from '../accounts/accounts.module';
import { TokensStoreModule } from '../delegate-payment/tokens-store.module';
import { WebModule } from '../web/web.module';
import { MandateAuthorisationController } from './mandate-authorisation.controller';
import { MandatePagesService } from './mandate-pages.service';
import { MandateViews } from './mandate-views';
import { MandatesController } from './mandates.controller';
import { MandatesService } from './mandates.service';
import { MandatesStoreModule } from './mandates-store.module';

/** UPI mandates: the /v1 API, the person's authorisation page, and MandatesService for delegate_payment. */
@Module({
  imports: [WebModule, AccountsModule, MandatesStoreModule, TokensStoreModule],
  controllers: [MandatesController, MandateAuthorisationController],
  providers: [MandatesService, MandateViews, MandatePagesService],
  exports: [MandatesService, MandateViews, MandatePagesService],
})
export class MandatesModule {}
