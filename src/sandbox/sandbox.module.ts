import { Module } from '@nestjs/common';

import { AccountsModule } from '../accounts/accounts.module';
import { ForexModule } from '../forex/forex.module';
import { MandatesModule } from '../mandates/mandates.module';
import { MandatesStoreModule } from '../mandates/mandates-store.module';
import { OpsModule } from '../ops/ops.module';
import { ProtocolKeysModule } from '../protocol-keys/protocol-keys.module';
import { SellerModule } from '../seller/seller.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { SandboxService } from './sandbox.service';

/** Demo workspace bootstrap for `npm run sandbox` (src/cli/sandbox.ts) and tests. */
@Module({
  imports: [
    AccountsModule,
    ProtocolKeysModule,
    SellerModule,
    MandatesModule,
    MandatesStoreModule,
    WebhooksModule,
    OpsModule,
    ForexModule,
  ],
  providers: [SandboxService],
  exports: [SandboxService],
})
export class SandboxModule {}
