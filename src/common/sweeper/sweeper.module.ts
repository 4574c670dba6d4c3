import { Global, Module } from '@nestjs/common';

import { PgListener } from './pg-listener';
import { Sweeper } from './sweeper';

/** Global so any module can register a sweep (or hear a NOTIFY) without importing WebhooksModule. */
@Global()
@Module({ providers: [Sweeper, PgListener], exports: [Sweeper, PgListener] })
export class SweeperModule {}
