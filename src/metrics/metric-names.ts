/**
 * Every metric the service exports at GET /metrics, in one place (docs/operations.md "Operating it" lists
 * them). Names follow Prometheus conventions: `_total` for counters, base units (seconds, paise)
 * in the name. Labels are bounded sets: route templates (never raw paths or ids), methods, status
 * codes, outcomes, decline codes, event types, queue names and job states.
 *
 * How each is measured:
 * - counted when the outcome commits (a Tx.afterCommit callback, so a rolled-back or retried
 *   transaction counts nothing): payments, refunds, webhook deliveries. Per process: Prometheus
 *   sums the instances (`sum by (outcome) (rate(...))`).
 * - read at scrape time with cheap indexed queries or in-memory state (gauges of what is true
 *   now, the same on every instance: use `max`, not `sum`, across instances): approvals waiting,
 *   outbox lag, pending deliveries, queue depths, database pool.
 * - prom-client's default process and Node.js metrics (`process_*`, `nodejs_*`), unprefixed.
 */
export const METRIC_PREFIX = 'svc_';

export const METRICS = {
  // HTTP, per request (src/metrics/http-metrics.middleware.ts).
  httpRequests: {
    name: 'svc_http_requests_total',
    help: 'HTTP requests answered, by route template, method and status code',
    labelNames: ['route', 'method', 'status'],
  },
  httpDuration: {
    name: 'svc_http_request_duration_seconds',
    help: 'Time from receiving a request to finishing its response, by route template, method and status code',
    labelNames: ['route', 'method', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  },

  // Payments, when the outcome commits (PaymentsService → BusinessMetrics.payment).
  payments: {
    name: 'svc_payments_total',
    help: 'Payment outcomes as committed: settled, declined (by the buyer rules, a person, or a revocation; reason = decline code), failed (the rail refused; reason = rail code), requires_approval (waiting for a person)',
    labelNames: ['outcome', 'reason'],
  },
  paymentAmount: {
    name: 'svc_payment_amount_paise_total',
    help: 'Sum of payment amounts in paise, by outcome (as svc_payments_total)',
    labelNames: ['outcome'],
  },

  // Refunds, when each state change commits (the refund.* outbox event it writes).
  refunds: {
    name: 'svc_refunds_total',
    help: 'Refund state changes as committed: requested (now pending_approval), succeeded, denied, expired, failed',
    labelNames: ['state'],
  },
  refundAmount: {
    name: 'svc_refund_amount_paise_total',
    help: 'Sum of refund amounts in paise, by state change (as svc_refunds_total)',
    labelNames: ['state'],
  },

  // Webhooks, when an attempt is recorded (WebhookDeliveriesService.attempt).
  webhookAttempts: {
    name: 'svc_webhook_attempts_total',
    help: 'Webhook HTTP attempts by event type and result: delivered, retry_scheduled, failed (schedule exhausted), attempt_failed (a failed redelivery), endpoint_gone (410)',
    labelNames: ['event_type', 'result'],
  },
  webhookDeliveries: {
    name: 'svc_webhook_deliveries_total',
    help: 'Webhook deliveries that reached an outcome: delivered (first 2xx) or failed (schedule exhausted or 410)',
    labelNames: ['event_type', 'outcome'],
  },
  webhookDeliveryAttempts: {
    name: 'svc_webhook_delivery_attempts',
    help: 'Attempts a delivery took to reach its outcome (delivered or failed)',
    labelNames: ['event_type', 'outcome'],
    buckets: [1, 2, 3, 4, 5, 6, 8, 11, 16],
  },
  settleToDelivery: {
    name: 'svc_webhook_settle_to_delivery_seconds',
    help: "From an intent's settled_at to the first successful delivery of its intent.settled webhook, per endpoint",
    labelNames: [],
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400],
  },

  // Inbound gateway events, when the record commits (GatewayWebhooksService).
  // The retention job (src/retention), when each batch's deletion commits; never a personal value.
  retentionDeleted: {
    name: 'svc_retention_deleted_total',
    help: 'Records deleted by the retention schedule, by kind (person_sessions, idempotency_records, seen_signatures, forex_document_bytes, abandoned_signups)',
    labelNames: ['kind'],
  },
  gatewayEventsUnprocessable: {
    name: 'svc_gateway_events_unprocessable_total',
    help: 'Correctly signed gateway events that did not parse, stored as unprocessable (answered 2xx, not applied), by event type (a known gateway event name, else other)',
    labelNames: ['event_type'],
  },

  // Read at scrape time (src/metrics/scrape-state.ts).
  approvalsWaiting: {
    name: 'svc_approvals_waiting',
    help: 'Approvals waiting for a person now, by kind (payment, refund)',
    labelNames: ['kind'],
  },
  approvalsOldestAge: {
    name: 'svc_approvals_oldest_waiting_age_seconds',
    help: 'Age of the oldest approval still waiting, by kind (0 when none waits)',
    labelNames: ['kind'],
  },
  outboxUndispatched: {
    name: 'svc_outbox_undispatched_events',
    help: 'Outbox events written but not yet dispatched to webhook deliveries',
    labelNames: [],
  },
  outboxLag: {
    name: 'svc_outbox_oldest_undispatched_age_seconds',
    help: 'Age of the oldest undispatched outbox event (0 when none): the outbox lag',
    labelNames: [],
  },
  webhookPending: {
    name: 'svc_webhook_deliveries_pending',
    help: 'Webhook deliveries still pending (not yet delivered or failed)',
    labelNames: [],
  },
  capturesAwaitingRefund: {
    name: 'svc_gateway_captures_awaiting_refund',
    help: 'Gateway payments captured that could not settle on an intent and are not yet refunded (docs/gateway.md "Going live on the gateway")',
    labelNames: [],
  },
  captureRefundOldestAge: {
    name: 'svc_gateway_capture_refund_oldest_age_seconds',
    help: 'Age of the oldest captured payment still awaiting its refund (0 when none)',
    labelNames: [],
  },
  queueJobs: {
    name: 'svc_queue_jobs',
    help: 'Bull jobs by queue and state (waiting, active, delayed, failed, completed, paused)',
    labelNames: ['queue', 'state'],
  },
  dbPoolConnections: {
    name: 'svc_db_pool_connections',
    help: "This process's PostgreSQL pool connections by state (idle, busy)",
    labelNames: ['state'],
  },
  dbPoolWaiting: {
    name: 'svc_db_pool_waiting_requests',
    help: 'Queries waiting for a pooled PostgreSQL connection in this process',
    labelNames: [],
  },
  dbPoolMax: {
    name: 'svc_db_pool_max_connections',
    help: 'Configured PostgreSQL pool size (DATABASE_POOL_MAX)',
    labelNames: [],
  },
  gatewayEventsForReview: {
    name: 'svc_gateway_events_for_review',
    help: 'Gateway events stored for an operator to look at (/app/ops/gateway-events), by outcome: unprocessable (signed, did not parse), unmatched (no order of ours)',
    labelNames: ['outcome'],
  },
  collectorUp: {
    name: 'svc_metrics_source_up',
    help: 'Whether the scrape-time reads succeeded this scrape (postgres, redis); 0 leaves those gauges out',
    labelNames: ['source'],
  },
} as const;

/** Bull job states reported per queue (svc_queue_jobs). */
export const QUEUE_JOB_STATES = [
  'waiting',
  'active',
  'delayed',
  'failed',
  'completed',
  'paused',
] as const;

/** Approval kinds always reported (0 when none), so alerts never see a missing series. */
export const APPROVAL_KINDS = ['payment', 'refund'] as const;
