import { Injectable } from '@nestjs/common';
import type { EntityTarget, FindOptionsWhere } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';

import { Tx } from '../../database/tx';
import { AuditActor, AuditLog } from '../audit';
import { Clock } from '../clock';
import { commonErrors } from '../errors/app-error';
import { decodeCursor, newestFirst, Page, toPage } from '../pagination';
import { CredentialRevocations } from './credential-revocations';

/** A credential row of a workspace that is listed newest first and revoked by stamping revoked_at. */
export interface RevocableCredential {
  id: string;
  workspaceId: string;
  revokedAt: Date | null;
  createdAt: Date;
}

/** Which credential: the words in a 404 and the audit action's prefix (`api_key` → `api_key.revoked`). */
export interface CredentialKind<E> {
  entity: EntityTarget<E>;
  label: string;
  auditPrefix: string;
}

/**
 * Listing and revoking of the workspace's bearer credentials (API keys, protocol keys): one
 * keyset-paginated list and one revoke that locks the row, is idempotent (revoking twice changes
 * nothing) and is effective on the very next request, since the credential resolver ignores
 * revoked rows and every instance's credential cache drops the key before the revoke is answered.
 */
@Injectable()
export class RevocableCredentials {
  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly revocations: CredentialRevocations,
  ) {}

  async list<E extends RevocableCredential, R>(
    kind: CredentialKind<E>,
    workspaceId: string,
    page: { limit: number; startingAfter?: string },
    present: (row: E) => R,
  ): Promise<Page<R>> {
    const qb = this.tx.manager
      .createQueryBuilder(kind.entity, 'k')
      .where('k.workspace_id = :workspaceId', { workspaceId });
    const rows = await newestFirst(qb, 'k', page.limit, decodeCursor(page.startingAfter)).getMany();
    return toPage(rows, page.limit, present);
  }

  async revoke<E extends RevocableCredential>(
    kind: CredentialKind<E>,
    workspaceId: string,
    id: string,
    actor: AuditActor,
  ): Promise<E> {
    return this.tx.run(async (m) => {
      const where = { id, workspaceId } as FindOptionsWhere<E>;
      const row = await m.findOne(kind.entity, { where, lock: { mode: 'for_no_key_update' } });
      if (!row) {
        throw commonErrors.notFound(kind.label, id);
      }
      if (!row.revokedAt) {
        row.revokedAt = this.clock.now();
        await m.update(kind.entity, where, {
          revokedAt: row.revokedAt,
        } as unknown as QueryDeepPartialEntity<E>);
        await this.audit.record(workspaceId, actor, `${kind.auditPrefix}.revoked`, id);
        await this.revocations.revoked([id]);
      }
      return row;
    });
  }
}
