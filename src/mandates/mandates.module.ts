import { Module } from '@nestjs/common';

import { WebModule } from '../web/web.module';
import { MandateRepository } from './mandate.repository';
import { MandateAuthorisationController } from './mandate-authorisation.controller';
import { MandatePagesService } from './mandate-pages.service';
import { MandateViews } from './mandate-views';
import { MandatesController } from './mandates.controller';
import { MandatesService } from './mandates.service';

/** UPI mandates: the /v1 API, the person's authorisation page, and MandatesService for delegate_payment. */
@Module({
  imports: [WebModule],
  controllers: [MandatesController, MandateAuthorisationController],
  providers: [MandateRepository, MandatesService, MandateViews, MandatePagesService],
  exports: [MandatesService, MandateViews],
})
export class MandatesModule {}
