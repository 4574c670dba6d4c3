import { Global, Module } from '@nestjs/common';

import { Sweeper } from './sweeper';

/** Global so any module can register a sweep without importing WebhooksModule. */
@Global()
@Module({ providers: [Sweeper], exports: [Sweeper] })
export class SweeperModule {}
