import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { Cursor, newestFirst } from '../common/pagination';
import { batchColumns, batchInsert } from '../database/batch';
import { sql, SqlFragment, SqlOperand } from '../database/fragment';
import { personalRows } from '../database/personal-rows';
import { queryPrepared } from '../database/prepared';
import { QueuedStatement, Tx } from '../database/tx';
import { BusinessMetrics } from '../metrics/business-metrics';
import { OutboxEvent } from './outbox-event.entity';

/** NOTIFY channel that wakes the webhook dispatcher (src/webhooks/webhook-dispatcher.ts). */
export const OUTBOX_CHANNEL = 'outbox_events';

export interface OutboxInput {
  workspaceId: string;
  agentId: string;
  type: string;
  subjectId: string;
  data: Record<string, unknown>;
  /** Order events only: the merchant key whose `acp_order` endpoints receive it (src/orders). */
  protocolKeyId?: string | null;
}

interface OutboxRow {
  id: string;
  workspaceId: string;
  agentId: string;
  type: string;
  subjectId: string;
  payload: string;
  createdAt: string;
  protocolKeyId: string | null;
}

/**
 * A transaction's outbox rows in one INSERT (parallel arrays, so the text is the same for any
 * number of rows), each row's NOTIFY in its RETURNING: Postgres delivers the notifications when
 * (and only if) the transaction commits, and a data-modifying statement always runs to completion.
 */
const OUTBOX_COLUMNS = batchColumns<OutboxRow>({
  id: ['text', (r) => r.id],
  workspace_id: ['text', (r) => r.workspaceId],
  agent_id: ['text', (r) => r.agentId],
  type: ['text', (r) => r.type],
  subject_id: ['text', (r) => r.subjectId],
  payload: ['json_text', (r) => r.payload],
  created_at: ['timestamptz', (r) => r.createdAt],
  protocol_key_id: ['text', (r) => r.protocolKeyId],
});

/**
 * Each new event's place in the dispatcher's queue (outbox_pending, migration
 * 1764000001500-OutboxPending): queued with the event, so the commit statement writes both.
 */
interface PendingRow {
  eventId: string;
  createdAt: string;
}

const PENDING_COLUMNS = batchColumns<PendingRow>({
  event_id: ['text', (r) => r.eventId],
  created_at: ['timestamptz', (r) => r.createdAt],
});

function insertPendingRows(rows: PendingRow[]): QueuedStatement {
  return batchInsert('outbox_pending', PENDING_COLUMNS, rows);
}

function insertOutboxRows(rows: OutboxRow[]): QueuedStatement {
  return batchInsert('outbox_events', OUTBOX_COLUMNS, rows, {
    ordered: true,
    tail: `RETURNING pg_notify('${OUTBOX_CHANNEL}', id)`,
  });
}

/** SQL on outbox_events for another owner's statement (docs/architecture.md "Table owners"). */
export const outboxParts = {
  /** The event `id` as row_to_json (null when there is none). */
  rowJson: (id: SqlOperand): SqlFragment =>
    sql`(SELECT row_to_json(ev) FROM outbox_events ev WHERE ev.id = ${id})`,
  /** Events' routing columns (id, workspace_id, agent_id, type, created_at, protocol_key_id). */
  events: (): SqlFragment =>
    sql`SELECT id, workspace_id, agent_id, type, created_at, protocol_key_id FROM outbox_events`,
  /** Events not yet dispatched, counted. */
  waitingCount: (): SqlFragment => sql`(SELECT count(*)::int FROM outbox_pending)`,
  /** When the oldest event not yet dispatched was created (null when none). */
  oldestWaiting: (): SqlFragment => sql`(SELECT min(created_at) FROM outbox_pending)`,
};

/** An event the dispatcher claimed. */
export interface ClaimedEvent {
  id: string;
  workspace_id: string;
}

/**
 * The dispatcher's claim (docs/architecture.md "Table owners"): events waiting in outbox_pending,
 * these ids or the oldest `limit`, FOR UPDATE SKIP LOCKED (instances share the work). The claim
 * deletes their pending rows at once; the claim's transaction commits them gone together with the
 * deliveries it creates, or rolls back and leaves them waiting. A pending row whose event does not
 * exist is deleted and not returned.
 */
export function claimUndispatched(
  m: EntityManager,
  ids: string[] | null,
  limit: number,
): Promise<ClaimedEvent[]> {
  // Prepared (queryPrepared): the dispatcher runs this for nearly every settled payment, and an
  // unnamed statement is planned afresh each time.
  const claimed = ids
    ? `SELECT event_id FROM outbox_pending WHERE event_id = ANY($1)
        ORDER BY created_at, event_id FOR UPDATE SKIP LOCKED`
    : `SELECT event_id FROM outbox_pending
        ORDER BY created_at, event_id LIMIT $1 FOR UPDATE SKIP LOCKED`;
  return queryPrepared(
    m,
    `WITH claimed AS (${claimed}),
          gone AS (DELETE FROM outbox_pending p USING claimed c WHERE p.event_id = c.event_id)
     SELECT e.id, e.workspace_id FROM claimed c JOIN outbox_events e ON e.id = c.event_id
      ORDER BY e.created_at, e.id`,
    [ids ?? limit],
  ) as Promise<ClaimedEvent[]>;
}

/** A workspace's events, newest first, limit + 1 rows (for toPage). */
export function pageEvents(
  m: EntityManager,
  workspaceId: string,
  filter: { type?: string; agentId?: string },
  limit: number,
  cursor: Cursor | null,
): Promise<OutboxEvent[]> {
  const qb = m
    .createQueryBuilder(OutboxEvent, 'e')
    .where('e.workspace_id = :workspaceId', { workspaceId });
  if (filter.type) {
    qb.andWhere('e.type = :type', { type: filter.type });
  }
  if (filter.agentId) {
    qb.andWhere('e.agent_id = :agentId', { agentId: filter.agentId });
  }
  return newestFirst(qb, 'e', limit, cursor).getMany();
}

/**
 * Writes events in the caller's transaction, so an event exists iff the state change committed.
 * The rows are queued and written by one statement just before the transaction commits, together
 * with its audit rows (`Tx.writeBeforeCommit`; docs/testing.md "Tests", "SQL budgets"), and each wakes the
 * dispatcher by NOTIFY on commit. (type, subject_id) is unique: the event id is stable for
 * consumers to dedupe on. Outside a transaction the event is written at once.
 */
@Injectable()
export class OutboxRepository {
  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly metrics: BusinessMetrics,
  ) {}

  async add(input: OutboxInput): Promise<OutboxEvent> {
    const createdAt = this.clock.now();
    const id = newId('evt');
    const event: OutboxEvent = {
      id,
      workspaceId: input.workspaceId,
      agentId: input.agentId,
      type: input.type,
      subjectId: input.subjectId,
      payload: { id, type: input.type, created_at: createdAt.toISOString(), data: input.data },
      createdAt,
    };
    await this.tx.writeBeforeCommit<OutboxRow>(
      'outbox_events',
      {
        id,
        workspaceId: event.workspaceId,
        agentId: event.agentId,
        type: event.type,
        subjectId: event.subjectId,
        payload: JSON.stringify(event.payload),
        createdAt: createdAt.toISOString(),
        protocolKeyId: input.protocolKeyId ?? null,
      },
      insertOutboxRows,
    );
    await this.tx.writeBeforeCommit<PendingRow>(
      'outbox_pending',
      { eventId: id, createdAt: createdAt.toISOString() },
      insertPendingRows,
    );
    this.metrics.outboxEvent({ type: input.type, data: input.data });
    return event;
  }
}

/** Erasure's reach into outbox_events: rows that can be a person's (docs/personal-data.md "The personal-data map"). */
export const outboxEventsPersonalRows = personalRows(
  'outbox_events',
  't.workspace_id = s.ws OR t.agent_id = ANY(s.agents)',
);
