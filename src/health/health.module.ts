import { Module } from '@nestjs/common';

import { HealthController } from './health.controller';
import { ProbesController } from './probes.controller';
import { Readiness } from './readiness';

/** GET /health (both backing services, as before) and the probes GET /health/live and /health/ready. */
@Module({
  controllers: [HealthController, ProbesController],
  providers: [Readiness],
})
export class HealthModule {}
