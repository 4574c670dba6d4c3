import { Module } from '@nestjs/common';

import { AccountsController } from './accounts.controller';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';
import { AgentRepository } from './agent.repository';

@Module({
  controllers: [AccountsController],
  providers: [AccountsService, AccountsRepository, AgentRepository],
  exports: [AccountsService, AgentRepository],
})
export class AccountsModule {}
