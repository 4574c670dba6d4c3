import { Module } from '@nestjs/common';

import { AccountsController } from './accounts.controller';
import { AccountsService } from './accounts.service';
import { AgentRepository } from './agent.repository';

@Module({
  controllers: [AccountsController],
  providers: [AccountsService, AgentRepository],
  exports: [AccountsService, AgentRepository],
})
export class AccountsModule {}
