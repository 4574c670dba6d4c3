import { Module } from '@nestjs/common';

import { ProtocolKeysController } from './protocol-keys.controller';
import { ProtocolKeysService } from './protocol-keys.service';

@Module({
  controllers: [ProtocolKeysController],
  providers: [ProtocolKeysService],
  exports: [ProtocolKeysService],
})
export class ProtocolKeysModule {}
