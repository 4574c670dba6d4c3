import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';

import { HealthController } from './health.controller';
import { MigrationsHealthIndicator } from './migrations.health';
import { ProbesController } from './probes.controller';
import { Readiness } from './readiness';
import { RedisHealthIndicator } from './redis.health';

/**
 * GET /health (both backing services, as before) and the probes GET /health/live and
 * /health/ready (readiness on @nestjs/terminus). Terminus's logger is off: it would log every
 * failing probe at error level; `Readiness` logs when readiness is lost and regained.
 */
@Module({
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController, ProbesController],
  providers: [Readiness, RedisHealthIndicator, MigrationsHealthIndicator],
})
export class HealthModule {}
