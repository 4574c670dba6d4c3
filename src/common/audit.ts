import { Injectable } from '@nestjs/common';

import { Tx } from '../database/tx';

export interface AuditActor {
  type: 'person' | 'api_key' | 'agent' | 'protocol_key' | 'system';
  id: string;
}

/** Append-only audit trail, written in the caller's transaction. */
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
    await this.tx.manager.query(
      `INSERT INTO audit_events (workspace_id, actor_type, actor_id, action, subject_id, data) VALUES ($1, $2, $3, $4, $5, $6)`,
      [workspaceId, actor.type, actor.id, action, subjectId, JSON.stringify(data)],
    );
  }
}
