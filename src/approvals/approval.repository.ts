import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';

import { sql, SqlFragment } from '../database/fragment';
import { personalRows } from '../database/personal-rows';
import { Tx } from '../database/tx';
import { Approval, ApprovalKind } from './approval.entity';

/** SQL on approvals for another owner's statement (docs/architecture.md "Table owners"). */
export const approvalParts = {
  /** Pending approvals per kind, as a JSON array of {kind, waiting, oldest} (null when none). */
  pendingByKind: (): SqlFragment =>
    sql`(SELECT json_agg(a) FROM (
        SELECT kind, count(*)::int AS waiting, min(created_at) AS oldest
          FROM approvals WHERE status = 'pending' GROUP BY kind) a)`,
};

/** Personal data (src/personal-data): a workspace's approvals and their decisions, oldest first. */
export function approvalsOfWorkspace(m: EntityManager, workspaceId: string): Promise<Approval[]> {
  return m.find(Approval, { where: { workspaceId }, order: { createdAt: 'ASC', id: 'ASC' } });
}

/** The owner of approvals (docs/architecture.md "Table owners"); ApprovalsService keeps the logic. */
@Injectable()
export class ApprovalRepository {
  constructor(private readonly tx: Tx) {}

  async insert(approval: Approval): Promise<void> {
    await this.tx.manager.insert(Approval, approval);
  }

  /** The workspace's approvals (all, or of one status), newest first, at most 100. */
  listInWorkspace(workspaceId: string, status: Approval['status'] | 'all'): Promise<Approval[]> {
    const qb = this.tx.manager
      .createQueryBuilder(Approval, 'a')
      .where('a.workspace_id = :workspaceId', { workspaceId });
    if (status !== 'all') {
      qb.andWhere('a.status = :status', { status });
    }
    return qb.orderBy('a.created_at', 'DESC').limit(100).getMany();
  }

  findById(id: string): Promise<Approval | null> {
    return this.tx.manager.findOneBy(Approval, { id });
  }

  findInWorkspace(workspaceId: string, id: string): Promise<Approval | null> {
    return this.tx.manager.findOneBy(Approval, { id, workspaceId });
  }

  /** FOR NO KEY UPDATE (the lock order: after the subject, docs/architecture.md). */
  lockInWorkspace(workspaceId: string, id: string): Promise<Approval | null> {
    return this.tx.manager.findOne(Approval, {
      where: { id, workspaceId },
      lock: { mode: 'for_no_key_update' },
    });
  }

  /** Marks the subject's pending approvals `withdrawn` with the note; returns them. */
  async withdrawPending(
    kind: ApprovalKind,
    subjectId: string,
    now: Date,
    note: string,
  ): Promise<{ id: string; workspace_id: string }[]> {
    const [rows] = await this.tx.manager.query<[{ id: string; workspace_id: string }[], number]>(
      `UPDATE approvals SET status = 'withdrawn', decided_at = $1, note = $2
        WHERE kind = $3 AND subject_id = $4 AND status = 'pending'
        RETURNING id, workspace_id`,
      [now, note, kind, subjectId],
    );
    return rows;
  }

  /** Ids of pending approvals expired at `now`, oldest expiry first, at most `limit`. */
  async overdueIds(now: Date, limit: number): Promise<string[]> {
    const due = await this.tx.manager.query<{ id: string }[]>(
      `SELECT id FROM approvals WHERE status = 'pending' AND expires_at <= $1 ORDER BY expires_at LIMIT $2`,
      [now, limit],
    );
    return due.map((r) => r.id);
  }

  async update(id: string, changes: QueryDeepPartialEntity<Approval>): Promise<void> {
    await this.tx.manager.update(Approval, { id }, changes);
  }
}

/** Erasure's reach into approvals: rows that can be a person's (docs/personal-data.md "The personal-data map"). */
export const approvalsPersonalRows = personalRows(
  'approvals',
  't.workspace_id = s.ws OR t.subject_id = ANY(s.intents)',
);
