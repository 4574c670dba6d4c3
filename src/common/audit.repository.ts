import type { EntityManager } from 'typeorm';

import { batchColumns, batchInsert } from '../database/batch';
import { personalRows } from '../database/personal-rows';
import { QueuedStatement } from '../database/tx';

/** One audit_events row as AuditLog queues it. */
export interface AuditRow {
  workspaceId: string;
  actorType: 'person' | 'api_key' | 'agent' | 'protocol_key' | 'system';
  actorId: string;
  action: string;
  subjectId: string | null;
  data: string;
}

/**
 * All of a transaction's audit rows in one statement, in the order they were recorded (so their
 * ids are too). Parallel arrays, so the statement text is the same for any number of rows.
 */
const AUDIT_COLUMNS = batchColumns<AuditRow>({
  workspace_id: ['text', (r) => r.workspaceId],
  actor_type: ['text', (r) => r.actorType],
  actor_id: ['text', (r) => r.actorId],
  action: ['text', (r) => r.action],
  subject_id: ['text', (r) => r.subjectId],
  data: ['json_text', (r) => r.data],
});

/**
 * The owner of audit_events (docs/architecture.md "Table owners"): AuditLog's batch writer, for
 * `Tx.writeBeforeCommit`.
 */
export function insertAuditRows(rows: AuditRow[]): QueuedStatement {
  return batchInsert('audit_events', AUDIT_COLUMNS, rows, { ordered: true });
}

/** Personal data (src/personal-data): a workspace's audit trail, newest first, at most `limit`. */
export async function auditEventsOf(m: EntityManager, workspaceId: string, limit: number) {
  return m.query<
    {
      at: Date;
      actor_type: string;
      actor_id: string;
      action: string;
      subject_id: string | null;
      data: Record<string, unknown>;
    }[]
  >(
    `SELECT created_at AS at, actor_type, actor_id, action, subject_id, data FROM audit_events
      WHERE workspace_id = $1 ORDER BY id DESC LIMIT $2`,
    [workspaceId, limit],
  );
}

/** Erasure's reach into audit_events: rows that can be a person's (docs/personal-data.md "The personal-data map"). */
export const auditEventsPersonalRows = personalRows('audit_events', 't.workspace_id = s.ws');
