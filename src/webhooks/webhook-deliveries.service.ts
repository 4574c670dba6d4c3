import { Inject, Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { AuditActor, AuditLog } from '../common/audit';
import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { decodeCursor, newestFirst, Page, toPage } from '../common/pagination';
import type { DeliverWebhookJob } from '../common/queues/queues';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { batchColumns, batchInsert, batchUpdate } from '../database/batch';
import { entityFromJson } from '../database/entity-from-json';
import { col, param, sql, SqlFragment, textOf } from '../database/fragment';
import { queryFragment, Sql, Statement, statement } from '../database/sql';
import { QueuedStatement, Tx } from '../database/tx';
import { BusinessMetrics } from '../metrics/business-metrics';
import { outboxParts } from '../outbox/outbox.repository';
import { OutboxEvent } from '../outbox/outbox-event.entity';
import { WebhookAttemptResponse, WebhookDeliveryResponse } from './dto/webhook.responses';
import { WebhookAttempt } from './entities/webhook-attempt.entity';
import { WebhookDelivery } from './entities/webhook-delivery.entity';
import { WebhookDisabledReason, WebhookEndpoint } from './entities/webhook-endpoint.entity';
import { nextRetryDelayMs } from './retry-schedule';
import { WebhookDeliveryProducer } from './webhook-delivery.producer';
import {
  disableEnabledEndpoint,
  endpointParts,
  findWorkspaceEndpoint,
} from './webhook-endpoints.service';
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

/** A delivery the dispatcher creates. */
export interface NewDelivery {
  id: string;
  workspaceId: string;
  endpointId: string;
  eventId: string;
  type: string;
}

/** Inserts the dispatcher's new deliveries (one per event and endpoint); returns those created. */
export function insertDeliveries(
  m: EntityManager,
  rows: NewDelivery[],
  now: Date,
): Promise<{ id: string; event_id: string }[]> {
  const { sql, params } = batchInsert(
    'webhook_deliveries',
    batchColumns<NewDelivery>({
      id: ['text', (r) => r.id],
      workspace_id: ['text', (r) => r.workspaceId],
      endpoint_id: ['text', (r) => r.endpointId],
      event_id: ['text', (r) => r.eventId],
      event_type: ['text', (r) => r.type],
      status: ['text', () => 'pending'],
      next_attempt_at: ['timestamptz', () => now],
      created_at: ['timestamptz', () => now],
      updated_at: ['timestamptz', () => now],
    }),
    rows,
    { tail: 'ON CONFLICT (event_id, endpoint_id) DO NOTHING RETURNING id, event_id' },
  );
  return m.query(sql, params);
}

/** A delivery owed an attempt that no job is carrying. */
export interface StalledDelivery {
  id: string;
  event_id: string;
  scheduled_attempts: number;
  manual_attempts: number;
  manual_requests: number;
  scheduled_due: boolean;
}

/**
 * Scheduled attempts due by `cutoff` on enabled endpoints, and redeliveries requested but not yet
 * made (at most 100).
 */
export function stalledDeliveries(m: EntityManager, cutoff: Date): Promise<StalledDelivery[]> {
  const at = param(cutoff);
  const enabled = endpointParts.enabled(col('d.endpoint_id'));
  return queryFragment(
    m,
    sql`SELECT d.id, d.event_id, d.scheduled_attempts, d.manual_attempts, d.manual_requests,
            (d.status = 'pending' AND ${enabled} AND d.next_attempt_at <= ${at})
              AS scheduled_due
       FROM webhook_deliveries d
      WHERE (d.status = 'pending' AND d.next_attempt_at <= ${at} AND ${enabled})
         OR (d.manual_attempts < d.manual_requests AND d.updated_at <= ${at})
      LIMIT 100`,
  );
}

type JsonRow = Record<string, unknown>;

interface AttemptInputs {
  delivery: JsonRow;
  endpoint: JsonRow | null;
  event: JsonRow | null;
}

let attemptInputsText: string | undefined;

/**
 * What one attempt needs, in one round trip: the delivery, its endpoint and its event. The text
 * is built on first use, not at load: webhook-endpoints.service.ts is still loading when this
 * module is (it imports the dispatcher, which imports this).
 */
function attemptInputs(deliveryId: string): Statement<AttemptInputs> {
  attemptInputsText ??= textOf(
    sql`SELECT row_to_json(d) AS delivery, ${endpointParts.rowJson(col('d.endpoint_id'))} AS endpoint,
          ${outboxParts.rowJson(col('d.event_id'))} AS event
     FROM webhook_deliveries d WHERE d.id = $1`,
  );
  return { text: attemptInputsText, values: [deliveryId] };
}

/** The delivery, locked to record an attempt on it. */
const lockDelivery = statement<{ delivery: JsonRow }, [string]>(
  `SELECT row_to_json(d) AS delivery FROM webhook_deliveries d WHERE d.id = $1 FOR UPDATE`,
);

/** Attempts, inserted by the commit's one statement (Tx.writeBeforeCommit). */
const ATTEMPT_COLUMNS = batchColumns<WebhookAttempt>({
  id: ['text', (r) => r.id],
  delivery_id: ['text', (r) => r.deliveryId],
  attempt: ['int', (r) => r.attempt],
  trigger: ['text', (r) => r.trigger],
  status_code: ['int', (r) => r.statusCode],
  duration_ms: ['int', (r) => r.durationMs],
  error: ['text', (r) => r.error],
  response_body: ['text', (r) => r.responseBody],
  created_at: ['timestamptz', (r) => r.createdAt],
});

function insertAttempts(rows: WebhookAttempt[]): QueuedStatement {
  return batchInsert('webhook_attempts', ATTEMPT_COLUMNS, rows);
}

/** Deliveries' state after an attempt (every column an attempt may change), at commit. */
const DELIVERY_STATE_COLUMNS = batchColumns<WebhookDelivery>({
  id: ['text', (r) => r.id],
  status: ['text', (r) => r.status],
  attempt_count: ['int', (r) => r.attemptCount],
  scheduled_attempts: ['int', (r) => r.scheduledAttempts],
  manual_attempts: ['int', (r) => r.manualAttempts],
  last_status_code: ['int', (r) => r.lastStatusCode],
  last_error: ['text', (r) => r.lastError],
  next_attempt_at: ['timestamptz', (r) => r.nextAttemptAt],
  delivered_at: ['timestamptz', (r) => r.deliveredAt],
  failed_at: ['timestamptz', (r) => r.failedAt],
  updated_at: ['timestamptz', (r) => r.updatedAt],
});

function updateDeliveries(rows: WebhookDelivery[]): QueuedStatement {
  return batchUpdate('webhook_deliveries', 'id', DELIVERY_STATE_COLUMNS, rows);
}

/** SQL on webhook_deliveries for another owner's statement (docs/architecture.md "Table owners"). */
export const deliveryParts = {
  /** Deliveries still pending, counted. */
  pendingCount: (): SqlFragment =>
    sql`(SELECT count(*)::int FROM webhook_deliveries WHERE status = 'pending')`,
};

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
    private readonly sql: Sql,
  ) {}

  async listDeliveries(
    workspaceId: string,
    endpointId: string,
    limit = 20,
    startingAfter?: string,
  ): Promise<Page<WebhookDeliveryResponse>> {
    const cursor = decodeCursor(startingAfter);
    const endpoint = await findWorkspaceEndpoint(this.tx.manager, workspaceId, endpointId);
    if (!endpoint) {
      throw webhookErrors.endpointNotFound(endpointId);
    }
    const qb = this.tx.manager
      .createQueryBuilder(WebhookDelivery, 'd')
      .where('d.endpoint_id = :endpointId', { endpointId });
    const rows = await newestFirst(qb, 'd', limit, cursor).getMany();
    return toPage(rows, limit, toDeliveryResponse);
  }

  /** Every attempt, oldest first (a delivery has at most schedule + 1 scheduled attempts plus redeliveries). */
  async listAttempts(
    workspaceId: string,
    deliveryId: string,
  ): Promise<Page<WebhookAttemptResponse>> {
    const delivery = await this.tx.manager.findOneBy(WebhookDelivery, {
      id: deliveryId,
      workspaceId,
    });
    if (!delivery) {
      throw webhookErrors.deliveryNotFound(deliveryId);
    }
    const rows = await this.tx.manager.find(WebhookAttempt, {
      where: { deliveryId },
      order: { attempt: 'ASC' },
    });
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
    return this.tx.run(async (m) => {
      const delivery = await m.findOne(WebhookDelivery, {
        where: { id: deliveryId, workspaceId },
        lock: { mode: 'pessimistic_write' },
      });
      if (!delivery) {
        throw webhookErrors.deliveryNotFound(deliveryId);
      }
      delivery.manualRequests += 1;
      delivery.updatedAt = this.clock.now();
      await m.update(
        WebhookDelivery,
        { id: deliveryId },
        { manualRequests: delivery.manualRequests, updatedAt: delivery.updatedAt },
      );
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
    const m = this.tx.manager;
    // A first attempt's job is enqueued once its delivery has committed (WebhookDispatcher), so
    // a missing delivery is one that no longer exists.
    const inputs = await this.sql.one(attemptInputs(job.deliveryId));
    if (!inputs?.endpoint) {
      return 'gone';
    }
    const delivery = entityFromJson(m, WebhookDelivery, inputs.delivery);
    const endpoint = entityFromJson(m, WebhookEndpoint, inputs.endpoint);
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
    if (!inputs.event) {
      return 'gone';
    }
    const event = entityFromJson(m, OutboxEvent, inputs.event);
    const result = await this.sender.send({
      url: endpoint.url,
      scheme: endpoint.kind === 'acp_order' ? 'merchant' : 'standard',
      eventId: event.id,
      body: deliveryBody(endpoint, event),
      secrets: this.signingSecrets(endpoint),
    });
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
    return this.tx.run(async (m) => {
      const locked = await this.sql.one(lockDelivery(job.deliveryId));
      if (!locked) {
        throw new Error(`webhook delivery ${job.deliveryId} not found`);
      }
      const d = entityFromJson(m, WebhookDelivery, locked.delivery);
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
    if (await disableEnabledEndpoint(this.tx.manager, d.endpointId, reason, now)) {
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
