import { Inject, Injectable, Logger } from '@nestjs/common';

import { AuditActor, AuditLog } from '../common/audit';
import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { decodeCursor, Page, toPage } from '../common/pagination';
import type { DeliverWebhookJob } from '../common/queues/queues';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { Tx } from '../database/tx';
import { BusinessMetrics } from '../metrics/business-metrics';
import { OutboxEvent } from '../outbox/outbox-event.entity';
import { WebhookAttemptResponse, WebhookDeliveryResponse } from './dto/webhook.responses';
import { EndpointKindSigners } from './endpoint-kind-signers';
import { WebhookAttempt } from './entities/webhook-attempt.entity';
import { WebhookDelivery } from './entities/webhook-delivery.entity';
import { WebhookDisabledReason, WebhookEndpoint } from './entities/webhook-endpoint.entity';
import { nextRetryDelayMs } from './retry-schedule';
import { WebhookDeliveryProducer } from './webhook-delivery.producer';
import {
  insertAttempts,
  updateDeliveries,
  WebhookDeliveryRepository,
} from './webhook-delivery.repository';
import { WebhookEndpointRepository } from './webhook-endpoint.repository';
import { WebhookSecrets } from './webhook-secrets';
import { SendResult, WebhookSender } from './webhook-sender';
import { webhookErrors } from './webhooks.errors';
import { toAttemptResponse, toDeliveryResponse } from './webhooks.mapper';

/** What one job did (the processor logs it). */
export type AttemptOutcome =
  | 'gone'
  | 'skipped'
  | 'paused'
  | 'delivered'
  | 'retry_scheduled'
  | 'failed'
  | 'attempt_failed'
  | 'endpoint_gone';

/**
 * 410 Gone: the receiver says this URL is permanently finished. Retrying for a day would only
 * hammer it, so the endpoint is disabled at the first 410 (reason `gone`).
 */
export const GONE_STATUS = 410;

const SYSTEM: AuditActor = { type: 'system', id: 'webhooks' };

/**
 * The bytes sent: the stored event for seller endpoints ({id, type, created_at, data}); for ACP
 * order receivers the spec's closed WebhookEvent, {type, data} (the event id travels in
 * Request-Id). Both are fixed at the event's creation, so every retry sends the same body.
 */
export function deliveryBody(endpoint: Pick<WebhookEndpoint, 'kind'>, event: OutboxEvent): string {
  if (endpoint.kind === 'acp_order') {
    const p = event.payload as { type: string; data: unknown };
    return JSON.stringify({ type: p.type, data: p.data });
  }
  return JSON.stringify(event.payload);
}

/**
 * Deliveries and their attempts: the seller's view (list, attempts, redeliver) and the worker's
 * use case (make one attempt and record it).
 */
@Injectable()
export class WebhookDeliveriesService {
  private readonly logger = new Logger(WebhookDeliveriesService.name);

  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly secrets: WebhookSecrets,
    private readonly sender: WebhookSender,
    private readonly producer: WebhookDeliveryProducer,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: BusinessMetrics,
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly endpoints: WebhookEndpointRepository,
    private readonly kindSigners: EndpointKindSigners,
  ) {}

  async listDeliveries(
    workspaceId: string,
    endpointId: string,
    limit = 20,
    startingAfter?: string,
  ): Promise<Page<WebhookDeliveryResponse>> {
    const cursor = decodeCursor(startingAfter);
    const endpoint = await this.endpoints.findInWorkspace(workspaceId, endpointId);
    if (!endpoint) {
      throw webhookErrors.endpointNotFound(endpointId);
    }
    const rows = await this.deliveries.pageOfEndpoint(endpointId, limit, cursor);
    return toPage(rows, limit, toDeliveryResponse);
  }

  /** Every attempt, oldest first (a delivery has at most schedule + 1 scheduled attempts plus redeliveries). */
  async listAttempts(
    workspaceId: string,
    deliveryId: string,
  ): Promise<Page<WebhookAttemptResponse>> {
    const delivery = await this.deliveries.findInWorkspace(workspaceId, deliveryId);
    if (!delivery) {
      throw webhookErrors.deliveryNotFound(deliveryId);
    }
    const rows = await this.deliveries.attemptsOf(deliveryId);
    return {
      object: 'list',
      data: rows.map(toAttemptResponse),
      has_more: false,
      next_cursor: null,
    };
  }

  /**
   * Asks for one more attempt now, whatever the delivery's state (pending, delivered, failed) and
   * even on a disabled endpoint: it is an explicit request, and it re-enables nothing. The request
   * is recorded in Postgres; the job is only a wake-up (after commit), and the stalled-delivery
   * sweep re-enqueues it if Redis drops it.
   */
  async redeliver(
    workspaceId: string,
    deliveryId: string,
    actor: AuditActor,
  ): Promise<WebhookDeliveryResponse> {
    return this.tx.run(async () => {
      const delivery = await this.deliveries.lockInWorkspace(workspaceId, deliveryId);
      if (!delivery) {
        throw webhookErrors.deliveryNotFound(deliveryId);
      }
      delivery.manualRequests += 1;
      delivery.updatedAt = this.clock.now();
      await this.deliveries.update(deliveryId, {
        manualRequests: delivery.manualRequests,
        updatedAt: delivery.updatedAt,
      });
      await this.audit.record(
        workspaceId,
        actor,
        'webhook_delivery.redelivery_requested',
        deliveryId,
        { event_id: delivery.eventId },
      );
      const job: DeliverWebhookJob = {
        deliveryId,
        eventId: delivery.eventId,
        trigger: 'manual',
        seq: delivery.manualRequests,
      };
      this.tx.afterCommit(() => this.producer.enqueue(job));
      return toDeliveryResponse(delivery);
    });
  }

  /**
   * One job = at most one HTTP attempt. Re-reads the delivery and does nothing when the job is
   * stale: delivery gone (its dispatch rolled back), already delivered/failed, this scheduled
   * attempt already made, or the endpoint disabled (the delivery waits, pending, until the
   * endpoint is enabled). The send happens outside any transaction; its outcome is recorded
   * under a row lock together with the next step (retry time, delivered, or failed + endpoint
   * disabled: after the last retry, or at once when the receiver answers 410 Gone).
   */
  async attempt(job: DeliverWebhookJob): Promise<AttemptOutcome> {
    // A first attempt's job is enqueued once its delivery has committed (WebhookDispatcher), so
    // a missing delivery is one that no longer exists.
    const inputs = await this.deliveries.findForAttempt(job.deliveryId);
    if (!inputs?.endpoint) {
      return 'gone';
    }
    const { delivery, endpoint } = inputs;
    if (job.trigger === 'scheduled') {
      if (delivery.status !== 'pending' || delivery.scheduledAttempts !== job.seq - 1) {
        return 'skipped';
      }
      if (endpoint.status !== 'enabled') {
        return 'paused';
      }
    } else if (!(delivery.manualAttempts < job.seq && job.seq <= delivery.manualRequests)) {
      return 'skipped';
    }
    const event = inputs.event;
    if (!event) {
      return 'gone';
    }
    const external = endpoint.kind === 'ucp_order' ? this.kindSigners.get(endpoint.kind) : null;
    let result: SendResult;
    if (external) {
      const body = external.body(event);
      result = await this.sender.send({
        url: endpoint.url,
        scheme: 'external',
        eventId: event.id,
        body,
        secrets: [],
        headers: (at) => external.headers({ url: endpoint.url, eventId: event.id, body, at }),
      });
    } else if (external === undefined) {
      result = {
        ok: false,
        statusCode: null,
        durationMs: 0,
        error: `no signer for ${endpoint.kind} endpoints on this instance`,
        responseBody: null,
      };
    } else {
      result = await this.sender.send({
        url: endpoint.url,
        scheme: endpoint.kind === 'acp_order' ? 'merchant' : 'standard',
        eventId: event.id,
        body: deliveryBody(endpoint, event),
        secrets: this.signingSecrets(endpoint),
      });
    }
    const { outcome, retryInMs, attempts, reached } = await this.record(job, result);
    const data = (event.payload as { data?: { settled_at?: unknown } }).data;
    this.metrics.webhookAttempt({
      eventType: event.type,
      result: outcome,
      attempts,
      reached,
      settledAt:
        event.type === 'intent.settled' && typeof data?.settled_at === 'string'
          ? data.settled_at
          : null,
    });
    if (retryInMs !== null) {
      // A lost wake-up is picked up by the stalled-delivery sweep; the schedule lives in Postgres.
      await this.producer
        .enqueue({ ...job, seq: job.seq + 1 }, retryInMs)
        .catch((err: Error) =>
          this.logger.warn(
            { delivery_id: job.deliveryId, err: err.message },
            'retry not enqueued; the sweep will resume it',
          ),
        );
    }
    return outcome;
  }

  private signingSecrets(endpoint: WebhookEndpoint): string[] {
    const secrets = [this.secrets.open(endpoint.secretCiphertext, endpoint.id)];
    if (
      endpoint.previousSecretCiphertext &&
      endpoint.previousSecretExpiresAt &&
      endpoint.previousSecretExpiresAt > this.clock.now()
    ) {
      secrets.push(this.secrets.open(endpoint.previousSecretCiphertext, endpoint.id));
    }
    return secrets;
  }

  private async record(
    job: DeliverWebhookJob,
    result: SendResult,
  ): Promise<{
    outcome: AttemptOutcome;
    retryInMs: number | null;
    /** Attempts of this delivery so far, this one included (metrics). */
    attempts: number;
    /** This attempt took the delivery to its outcome: first 2xx, or failed for good (metrics). */
    reached: 'delivered' | 'failed' | null;
  }> {
    return this.tx.run(async () => {
      const d = await this.deliveries.lock(job.deliveryId);
      if (!d) {
        throw new Error(`webhook delivery ${job.deliveryId} not found`);
      }
      const now = this.clock.now();
      const attempt = d.attemptCount + 1;
      const row: WebhookAttempt = {
        id: newId('wha'),
        deliveryId: d.id,
        attempt,
        trigger: job.trigger,
        statusCode: result.statusCode,
        durationMs: result.durationMs,
        error: result.error,
        responseBody: result.responseBody,
        createdAt: now,
      };
      await this.tx.writeBeforeCommit('webhook_attempts.insert', row, insertAttempts);
      const patch: Partial<WebhookDelivery> = {
        attemptCount: attempt,
        lastStatusCode: result.statusCode,
        lastError: result.error,
        updatedAt: now,
      };
      let outcome: AttemptOutcome = result.ok ? 'delivered' : 'attempt_failed';
      let retryInMs: number | null = null;
      if (result.statusCode === GONE_STATUS) {
        // Scheduled or manual alike: no more attempts of this delivery, and the endpoint goes
        // down with its reason. A delivery already delivered keeps that status.
        if (job.trigger === 'manual') {
          patch.manualAttempts = Math.max(d.manualAttempts, job.seq);
        } else if (d.status === 'pending' && d.scheduledAttempts === job.seq - 1) {
          patch.scheduledAttempts = job.seq;
        }
        if (d.status === 'pending') {
          Object.assign(patch, { status: 'failed', failedAt: now, nextAttemptAt: null });
        }
        outcome = 'endpoint_gone';
        await this.disableEndpoint(d, 'gone', now);
      } else if (job.trigger === 'manual') {
        patch.manualAttempts = Math.max(d.manualAttempts, job.seq);
      } else if (d.status === 'pending' && d.scheduledAttempts === job.seq - 1) {
        patch.scheduledAttempts = job.seq;
        if (!result.ok) {
          retryInMs = nextRetryDelayMs(this.config.webhookRetryScheduleMs, job.seq);
          if (retryInMs !== null) {
            patch.nextAttemptAt = new Date(now.getTime() + retryInMs);
            outcome = 'retry_scheduled';
          } else {
            Object.assign(patch, { status: 'failed', failedAt: now, nextAttemptAt: null });
            outcome = 'failed';
            await this.disableEndpoint(d, 'retries_exhausted', now);
          }
        }
      }
      if (result.ok) {
        Object.assign(patch, {
          status: 'delivered',
          deliveredAt: d.deliveredAt ?? now,
          nextAttemptAt: null,
        });
      }
      await this.tx.writeBeforeCommit(
        'webhook_deliveries.attempted',
        { ...d, ...patch },
        updateDeliveries,
      );
      const reached =
        result.ok && d.deliveredAt === null
          ? 'delivered'
          : patch.status === 'failed'
            ? 'failed'
            : null;
      return { outcome, retryInMs, attempts: attempt, reached };
    });
  }

  /**
   * A delivery that exhausted its schedule, or whose receiver answered 410 Gone, takes its
   * endpoint down with it (reason visible in GET). An endpoint already disabled keeps its reason.
   */
  private async disableEndpoint(
    d: WebhookDelivery,
    reason: Exclude<WebhookDisabledReason, 'disabled_by_user'>,
    now: Date,
  ): Promise<void> {
    if (await this.endpoints.disableIfEnabled(d.endpointId, reason, now)) {
      await this.audit.record(d.workspaceId, SYSTEM, 'webhook_endpoint.disabled', d.endpointId, {
        reason,
        delivery_id: d.id,
        event_id: d.eventId,
      });
      this.logger.warn(
        { endpoint_id: d.endpointId, delivery_id: d.id, reason },
        'webhook endpoint disabled',
      );
    }
  }
}
