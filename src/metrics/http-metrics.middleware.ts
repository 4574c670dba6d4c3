import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';

import { MetricsRegistry } from './metrics-registry';
import { methodLabel, routeLabel } from './route-label';

/**
 * Counts every request and times it from arrival to the end of the response, labelled by route
 * template, method and status. Registered ahead of every other middleware (MetricsModule is
 * global, and Nest registers global modules' middleware first), so refusals by the HTTP
 * pipeline (400 hostile input, 413, 415) are counted too. A request the client abandons before
 * the response ends is counted with status 499.
 */
@Injectable()
export class HttpMetricsMiddleware implements NestMiddleware {
  constructor(private readonly metrics: MetricsRegistry) {}

  use(req: Request, res: Response, next: NextFunction): void {
    const start = process.hrtime.bigint();
    let done = false;
    const finish = () => {
      if (done) {
        return;
      }
      done = true;
      const labels = {
        route: routeLabel(req),
        method: methodLabel(req.method),
        status: String(res.writableFinished ? res.statusCode : 499),
      };
      this.metrics.httpRequests.inc(labels);
      this.metrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - start) / 1e9);
    };
    res.once('finish', finish);
    res.once('close', finish);
    next();
  }
}
