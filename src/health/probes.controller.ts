import { Controller, Get, Res, ServiceUnavailableException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { HealthCheckResult } from '@nestjs/terminus';
import type { Response } from 'express';

import { OUTAGE_RETRY_AFTER_SECONDS } from '../common/errors/outage';
import { NotRateLimited } from '../common/rate-limit/public-rate-limit.guard';
import { Readiness } from './readiness';

/**
 * Probes for a load balancer or Kubernetes (docs/operations.md "Operating it"):
 * - GET /health/live: 200 `{"status":"ok"}` whenever the process answers HTTP; it checks nothing
 *   else, so an outage of Postgres or Redis never gets a healthy process restarted;
 * - GET /health/ready: 200 when Postgres and Redis answer and no migration is pending; 503 with
 *   Retry-After otherwise, so the instance gets no traffic until it can serve it. The checks run
 *   on @nestjs/terminus (`Readiness`); the ServiceUnavailableException it throws when a check is
 *   down is answered here, with terminus's result as the body, not by AllExceptionsFilter.
 * Both answer with Cache-Control: no-store, are not rate-limited, not logged per request, and
 * not part of the public OpenAPI contract. GET /health (HealthController) stays as it was.
 */
@ApiExcludeController()
@NotRateLimited()
@Controller('health')
export class ProbesController {
  constructor(private readonly readiness: Readiness) {}

  @Get('live')
  live(@Res({ passthrough: true }) res: Response): { status: 'ok' } {
    res.setHeader('Cache-Control', 'no-store');
    return { status: 'ok' };
  }

  @Get('ready')
  async ready(@Res({ passthrough: true }) res: Response): Promise<HealthCheckResult> {
    res.setHeader('Cache-Control', 'no-store');
    try {
      return await this.readiness.check();
    } catch (err) {
      if (!(err instanceof ServiceUnavailableException)) {
        throw err;
      }
      res.status(503);
      res.setHeader('Retry-After', String(OUTAGE_RETRY_AFTER_SECONDS));
      return err.getResponse() as HealthCheckResult;
    }
  }
}
