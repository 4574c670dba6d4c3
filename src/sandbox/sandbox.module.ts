import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { ProtocolKeysModule } from '../protocol-keys/protocol-keys.module';
import { SandboxService } from './sandbox.service';

/** Demo workspace bootstrap for `npm run sandbox` (src/cli/sandbox.ts) and tests. */
@Module({
  imports: [AccountsModule, ProtocolKeysModule],
  providers: [SandboxService],
  exports: [SandboxService],
})
export class SandboxModule {}
