import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { batchColumns, batchInsert } from '../database/batch';
import { QueuedStatement, Tx } from '../database/tx';

export interface AuditActor {
  type: 'person' | 'api_key' | 'agent' | 'protocol_key' | 'system';
  id: string;
}

interface AuditRow {
  workspaceId: string;
  actorType: AuditActor['type'];
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

function insertAuditRows(rows: AuditRow[]): QueuedStatement {
  return batchInsert('audit_events', AUDIT_COLUMNS, rows, { ordered: true });
}

/**
 * Append-only audit trail, written in the caller's transaction: the rows are queued and written
 * together by one INSERT just before that transaction commits (`Tx.writeBeforeCommit`), so a
 * request writes one audit statement however many things it records. They commit with the
 * business writes (a RefusalKeepingWrites included) and never survive a rollback. Outside a
 * transaction the row is written at once.
 */
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

@Injectable()
export class AuditLog {
  constructor(private readonly tx: Tx) {}

  async record(
    workspaceId: string,
    actor: AuditActor,
    action: string,
    subjectId: string | null,
    data: Record<string, unknown> = {},
  ): Promise<void> {
    await this.tx.writeBeforeCommit<AuditRow>(
      'audit_events',
      {
        workspaceId,
        actorType: actor.type,
        actorId: actor.id,
        action,
        subjectId,
        data: JSON.stringify(data),
      },
      insertAuditRows,
    );
  }
}
