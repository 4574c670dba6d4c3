import { Injectable } from '@nestjs/common';

import { Tx } from '../database/tx';
import { AuditRow, insertAuditRows } from './audit.repository';

export interface AuditActor {
  type: AuditRow['actorType'];
  id: string;
}

/**
 * Append-only audit trail, written in the caller's transaction: the rows are queued and written
 * together by one INSERT just before that transaction commits (`Tx.writeBeforeCommit`), so a
 * request writes one audit statement however many things it records. They commit with the
 * business writes (a RefusalKeepingWrites included) and never survive a rollback. Outside a
 * transaction the row is written at once. The SQL is audit.repository.ts's (docs/architecture.md
 * "Table owners").
 */
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
