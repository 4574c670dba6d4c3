import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

import { METRICS } from './metric-names';

type Spec = { name: string; help: string; labelNames: readonly string[] };
type HistogramSpec = Spec & { buckets: readonly number[] };

/**
 * prom-client metrics of this app instance, in a registry of its own rather than prom-client's
 * global one: several app instances can live in one process (the tests start many) without
 * colliding on metric names, and each exports only what it counted.
 */
@Injectable()
export class MetricsRegistry {
  readonly registry = new Registry();

  readonly httpRequests = this.counter(METRICS.httpRequests);
  readonly httpDuration = this.histogram(METRICS.httpDuration);
  readonly payments = this.counter(METRICS.payments);
  readonly paymentAmount = this.counter(METRICS.paymentAmount);
  readonly refunds = this.counter(METRICS.refunds);
  readonly refundAmount = this.counter(METRICS.refundAmount);
  readonly webhookAttempts = this.counter(METRICS.webhookAttempts);
  readonly webhookDeliveries = this.counter(METRICS.webhookDeliveries);
  readonly webhookDeliveryAttempts = this.histogram(METRICS.webhookDeliveryAttempts);
  readonly settleToDelivery = this.histogram(METRICS.settleToDelivery);
  readonly approvalsWaiting = this.gauge(METRICS.approvalsWaiting);
  readonly approvalsOldestAge = this.gauge(METRICS.approvalsOldestAge);
  readonly outboxUndispatched = this.gauge(METRICS.outboxUndispatched);
  readonly outboxLag = this.gauge(METRICS.outboxLag);
  readonly webhookPending = this.gauge(METRICS.webhookPending);
  readonly capturesAwaitingRefund = this.gauge(METRICS.capturesAwaitingRefund);
  readonly captureRefundOldestAge = this.gauge(METRICS.captureRefundOldestAge);
  readonly queueJobs = this.gauge(METRICS.queueJobs);
  readonly dbPoolConnections = this.gauge(METRICS.dbPoolConnections);
  readonly dbPoolWaiting = this.gauge(METRICS.dbPoolWaiting);
  readonly dbPoolMax = this.gauge(METRICS.dbPoolMax);
  readonly gatewayEventsUnprocessable = this.counter(METRICS.gatewayEventsUnprocessable);
  readonly retentionDeleted = this.counter(METRICS.retentionDeleted);
  readonly gatewayEventsForReview = this.gauge(METRICS.gatewayEventsForReview);
  readonly sourceUp = this.gauge(METRICS.collectorUp);

  constructor() {
    // process_cpu_seconds_total, process_resident_memory_bytes, nodejs_eventloop_lag_seconds, …
    collectDefaultMetrics({ register: this.registry });
  }

  private counter(spec: Spec): Counter {
    return new Counter({ ...spec, labelNames: [...spec.labelNames], registers: [this.registry] });
  }

  private gauge(spec: Spec): Gauge {
    return new Gauge({ ...spec, labelNames: [...spec.labelNames], registers: [this.registry] });
  }

  private histogram(spec: HistogramSpec): Histogram {
    return new Histogram({
      ...spec,
      labelNames: [...spec.labelNames],
      buckets: [...spec.buckets],
      registers: [this.registry],
    });
  }
}
