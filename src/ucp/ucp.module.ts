import { Module } from '@nestjs/common';

import { UcpDiscoveryController } from './ucp-discovery.controller';

/** Universal Commerce Protocol 2026-04-08 (docs/ucp.md): discovery at /.well-known/ucp. */
@Module({
  controllers: [UcpDiscoveryController],
})
export class UcpModule {}
