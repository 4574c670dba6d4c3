import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { Cursor, newestFirst } from '../common/pagination';
import { batchColumns, batchInsert, batchUpdate } from '../database/batch';
import { entityFromJson } from '../database/entity-from-json';
import { col, param, sql, SqlFragment, textOf } from '../database/fragment';
import { personalRows } from '../database/personal-rows';
import { queryFragment, Sql, Statement, statement } from '../database/sql';
import { QueuedStatement, Tx } from '../database/tx';
import { outboxParts } from '../outbox/outbox.repository';
import { OutboxEvent } from '../outbox/outbox-event.entity';
import { WebhookAttempt } from './entities/webhook-attempt.entity';
import { WebhookDelivery } from './entities/webhook-delivery.entity';
import { WebhookEndpoint } from './entities/webhook-endpoint.entity';
import { endpointParts } from './webhook-endpoint.repository';

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

/** What one attempt needs, in one round trip: the delivery, its endpoint and its event. */
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

/** The batch writer of attempts, for `Tx.writeBeforeCommit`. */
export function insertAttempts(rows: WebhookAttempt[]): QueuedStatement {
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

/** The batch writer of deliveries' state after an attempt, for `Tx.writeBeforeCommit`. */
export function updateDeliveries(rows: WebhookDelivery[]): QueuedStatement {
  return batchUpdate('webhook_deliveries', 'id', DELIVERY_STATE_COLUMNS, rows);
}

/** SQL on webhook_deliveries for another owner's statement (docs/architecture.md "Table owners"). */
export const deliveryParts = {
  /** Deliveries still pending, counted. */
  pendingCount: (): SqlFragment =>
    sql`(SELECT count(*)::int FROM webhook_deliveries WHERE status = 'pending')`,
};

/**
 * The owner of webhook_deliveries and webhook_attempts (docs/architecture.md "Table owners");
 * WebhookDeliveriesService keeps the logic, the dispatcher uses `insertDeliveries` and
 * `stalledDeliveries`.
 */
@Injectable()
export class WebhookDeliveryRepository {
  constructor(
    private readonly tx: Tx,
    private readonly sql: Sql,
  ) {}

  /** An endpoint's deliveries, newest first (limit + 1 rows, for toPage). */
  pageOfEndpoint(
    endpointId: string,
    limit: number,
    cursor: Cursor | null,
  ): Promise<WebhookDelivery[]> {
    const qb = this.tx.manager
      .createQueryBuilder(WebhookDelivery, 'd')
      .where('d.endpoint_id = :endpointId', { endpointId });
    return newestFirst(qb, 'd', limit, cursor).getMany();
  }

  findInWorkspace(workspaceId: string, id: string): Promise<WebhookDelivery | null> {
    return this.tx.manager.findOneBy(WebhookDelivery, { id, workspaceId });
  }

  /** A delivery's attempts, oldest first. */
  attemptsOf(deliveryId: string): Promise<WebhookAttempt[]> {
    return this.tx.manager.find(WebhookAttempt, {
      where: { deliveryId },
      order: { attempt: 'ASC' },
    });
  }

  /** SELECT … FOR UPDATE of a workspace's delivery. */
  lockInWorkspace(workspaceId: string, id: string): Promise<WebhookDelivery | null> {
    return this.tx.manager.findOne(WebhookDelivery, {
      where: { id, workspaceId },
      lock: { mode: 'pessimistic_write' },
    });
  }

  async update(
    id: string,
    patch: Partial<Pick<WebhookDelivery, 'manualRequests' | 'updatedAt'>>,
  ): Promise<void> {
    await this.tx.manager.update(WebhookDelivery, { id }, patch);
  }

  /**
   * What one attempt needs, in one round trip: the delivery, its endpoint and its event (null
   * when the delivery is gone).
   */
  async findForAttempt(deliveryId: string): Promise<{
    delivery: WebhookDelivery;
    endpoint: WebhookEndpoint | null;
    event: OutboxEvent | null;
  } | null> {
    const inputs = await this.sql.one(attemptInputs(deliveryId));
    if (!inputs) {
      return null;
    }
    const m = this.tx.manager;
    return {
      delivery: entityFromJson(m, WebhookDelivery, inputs.delivery),
      endpoint: inputs.endpoint ? entityFromJson(m, WebhookEndpoint, inputs.endpoint) : null,
      event: inputs.event ? entityFromJson(m, OutboxEvent, inputs.event) : null,
    };
  }

  /** SELECT … FOR UPDATE of a delivery, to record an attempt on it. */
  async lock(deliveryId: string): Promise<WebhookDelivery | null> {
    const locked = await this.sql.one(lockDelivery(deliveryId));
    return locked ? entityFromJson(this.tx.manager, WebhookDelivery, locked.delivery) : null;
  }
}

/** Erasure's reach into webhook_attempts: rows that can be a person's (docs/personal-data.md "The personal-data map"). */
export const webhookAttemptsPersonalRows = personalRows(
  'webhook_attempts',
  't.delivery_id IN (SELECT d.id FROM webhook_deliveries d WHERE d.workspace_id = s.ws)',
);
