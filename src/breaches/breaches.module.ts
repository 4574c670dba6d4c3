import { Module } from '@nestjs/common';

import { OpsModule } from '../ops/ops.module';
import { OutboxModule } from '../outbox/outbox.module';
import { WebModule } from '../web/web.module';
import { BreachNoticesController } from './breach-notices.controller';
import { BreachRegisterRepository } from './breach-register.repository';
import { BreachRegisterService } from './breach-register.service';
import { BreachesOpsController } from './breaches-ops.controller';

/**
 * The breach register (docs/personal-data.md "Breach register"): operators record a breach at
 * /app/ops/breaches, send the notices and prepare the report to the Data Protection Board; persons
 * read their notices at /app/notices. Imported in AppModule before AppNotFoundModule.
 */
@Module({
  imports: [WebModule, OpsModule, OutboxModule],
  controllers: [BreachesOpsController, BreachNoticesController],
  providers: [BreachRegisterRepository, BreachRegisterService],
})
export class BreachesModule {}
