import { Global, MiddlewareConsumer, Module, NestModule } from '@nestjs/common';

import { BusinessMetrics } from './business-metrics';
import { HttpMetricsMiddleware } from './http-metrics.middleware';
import { MetricsController } from './metrics.controller';
import { MetricsRegistry } from './metrics-registry';
import { ScrapeState } from './scrape-state';

/**
 * Prometheus metrics (docs/operations.md "Operating it"): GET /metrics, HTTP request metrics for every
 * request, and BusinessMetrics, through which the payment pipeline, the outbox and webhook
 * delivery report outcomes as they commit. Global, so those modules need no import, and so its
 * middleware is registered before every other (Nest registers global modules' middleware first).
 */
@Global()
@Module({
  controllers: [MetricsController],
  providers: [MetricsRegistry, BusinessMetrics, ScrapeState, HttpMetricsMiddleware],
  exports: [BusinessMetrics, MetricsRegistry],
})
export class MetricsModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(HttpMetricsMiddleware).forRoutes('*');
  }
}
