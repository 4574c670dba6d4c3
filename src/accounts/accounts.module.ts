import { Module } from '@nestjs/common';

import { OutboxModule } from '../outbox/outbox.module';
import { AccountsController } from './accounts.controller';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';
import { AgentRepository } from './agent.repository';
import { PartyClosure } from './party-closure.service';

@Module({
  imports: [OutboxModule],
  controllers: [AccountsController],
  providers: [AccountsService, AccountsRepository, AgentRepository, PartyClosure],
  exports: [AccountsService, AgentRepository, PartyClosure],
})
export class AccountsModule {}
