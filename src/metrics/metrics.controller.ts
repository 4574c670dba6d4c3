import { Controller, Get, Inject, Logger, OnModuleInit, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';

import { commonErrors } from '../common/errors/app-error';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { bearerMatches, MetricsAccess, metricsAccess } from './metrics-access';
import { MetricsRegistry } from './metrics-registry';
import { ScrapeState } from './scrape-state';

/**
 * GET /metrics in the Prometheus text format (docs/operations.md "Operating it"; names in metric-names.ts).
 * Left out of the public OpenAPI contract: it is for the operator's Prometheus, not for API
 * clients. Not logged per request (QUIET_PATHS in src/common/http/logging.ts); counted by the
 * public per-address rate limit like any route without a credential.
 */
@ApiExcludeController()
@Controller('metrics')
export class MetricsController implements OnModuleInit {
  private readonly logger = new Logger(MetricsController.name);
  private readonly access: MetricsAccess;

  constructor(
    private readonly metrics: MetricsRegistry,
    private readonly state: ScrapeState,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.access = metricsAccess(config);
  }

  onModuleInit(): void {
    if (this.access === 'off') {
      this.logger.warn('METRICS_TOKEN is not set: GET /metrics is not served in live mode');
    }
  }

  @Get()
  async scrape(@Req() req: Request, @Res() res: Response): Promise<void> {
    switch (this.access) {
      case 'off':
        throw commonErrors.routeNotFound(req.method, req.path);
      case 'token':
        if (!bearerMatches(req.header('authorization'), this.config.metricsToken ?? '')) {
          res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
          throw commonErrors.unauthorized(
            'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>',
          );
        }
        break;
      case 'open':
        break;
    }
    await this.state.refresh();
    const text = await this.metrics.registry.metrics();
    res.setHeader('Content-Type', this.metrics.registry.contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.status(200).end(text);
  }
}
