import { Module } from '@nestjs/common';

import { AccountsModule } from '../accounts/accounts.module';
import { WebModule } from '../web/web.module';
import { OperatorGuard } from './operator.guard';
import { OperatorAccess } from './operator-access';
import { OperatorsService } from './operators.service';
import { QueueDashboard } from './queue-dashboard';
import { QueueDashboardController } from './queue-dashboard.controller';

/**
 * Operator tools (docs/operations.md "Operating it"): the queue dashboard at /app/ops/queues for signed-in
 * operators, and operator accounts (OperatorsService, used by the sandbox). Imported in
 * AppModule before AppNotFoundModule, whose catch-all would otherwise answer /app/ops/….
 */
@Module({
  imports: [AccountsModule, WebModule],
  controllers: [QueueDashboardController],
  providers: [OperatorAccess, OperatorGuard, OperatorsService, QueueDashboard],
  exports: [OperatorsService, OperatorAccess],
})
export class OpsModule {}
