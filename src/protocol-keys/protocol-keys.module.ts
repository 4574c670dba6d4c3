import { Module } from '@nestjs/common';

import { AccountsModule } from '../accounts/accounts.module';
import { ProtocolKeyRepository } from './protocol-key.repository';
import { ProtocolKeysController } from './protocol-keys.controller';
import { ProtocolKeysService } from './protocol-keys.service';

@Module({
  imports: [AccountsModule],
  controllers: [ProtocolKeysController],
  providers: [ProtocolKeysService, ProtocolKeyRepository],
  exports: [ProtocolKeysService],
})
export class ProtocolKeysModule {}
