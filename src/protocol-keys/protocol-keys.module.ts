import { Module } from '@nestjs/common';

import { AccountsModule } from '../accounts/accounts.module';
import { ProtocolKeysController } from './protocol-keys.controller';
import { ProtocolKeysService } from './protocol-keys.service';

@Module({
  imports: [AccountsModule],
  controllers: [ProtocolKeysController],
  providers: [ProtocolKeysService],
  exports: [ProtocolKeysService],
})
export class ProtocolKeysModule {}
