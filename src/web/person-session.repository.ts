import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { accountParts } from '../accounts/accounts.repository';
import { PersonSession } from '../accounts/entities/person-session.entity';
import { textOf } from '../database/fragment';
import { Tx } from '../database/tx';

export interface SessionRow {
  sessionId: string;
  expiresAt: Date;
  personId: string;
  email: string;
  name: string;
  workspaceId: string;
  workspaceName: string;
  /** 'standard', or 'forex_partner' for a forex partner's workspace (its people are dealers). */
  workspaceKind: string;
}

/** Ends every session of a person (a password change); for the accounts module. */
export async function deleteSessionsOf(m: EntityManager, personId: string): Promise<void> {
  await m.delete(PersonSession, { personId });
}

/** A person's sign-ins (src/personal-data): when each started and ends; never a token hash. */
export async function sessionsOf(
  m: EntityManager,
  personId: string,
): Promise<{ id: string; createdAt: Date; expiresAt: Date }[]> {
  const rows = await m.find(PersonSession, { where: { personId }, order: { createdAt: 'ASC' } });
  return rows.map((s) => ({ id: s.id, createdAt: s.createdAt, expiresAt: s.expiresAt }));
}

/** The only SQL on person_sessions. Lookups are by token hash; the token itself is never stored. */
@Injectable()
export class PersonSessionRepository {
  constructor(private readonly tx: Tx) {}

  async insert(
    row: Pick<PersonSession, 'id' | 'personId' | 'tokenHash' | 'csrfSecretHash' | 'expiresAt'>,
  ): Promise<void> {
    await this.tx.manager.insert(PersonSession, row);
  }

  /** Session joined with its person and workspace: one round trip per signed-in request. */
  async findByTokenHash(tokenHash: string): Promise<SessionRow | null> {
    const rows = await this.tx.manager.query<
      {
        session_id: string;
        expires_at: Date;
        person_id: string;
        email: string;
        name: string;
        workspace_id: string;
        workspace_name: string;
        workspace_kind: string;
      }[]
    >(
      `SELECT s.id AS session_id, s.expires_at, p.person_id, p.email, p.name,
              p.workspace_id, p.workspace_name, p.workspace_kind
         FROM person_sessions s
         JOIN (${textOf(accountParts.personsWithWorkspace())}) p ON p.person_id = s.person_id
        WHERE s.token_hash = $1`,
      [tokenHash],
    );
    const r = rows[0];
    if (!r) {
      return null;
    }
    return {
      sessionId: r.session_id,
      expiresAt: new Date(r.expires_at),
      personId: r.person_id,
      email: r.email,
      name: r.name,
      workspaceId: r.workspace_id,
      workspaceName: r.workspace_name,
      workspaceKind: r.workspace_kind,
    };
  }

  /**
   * Expired sessions, in bounded batches (rows another instance is deleting are skipped); returns
   * how many went. (A bare DELETE … RETURNING answers [rows, count] through TypeORM, hence the CTE.)
   */
  async deleteExpired(now: Date, limit = 500): Promise<number> {
    const [row] = await this.tx.manager.query<{ n: number }[]>(
      `WITH d AS (
         DELETE FROM person_sessions WHERE id IN (
           SELECT id FROM person_sessions WHERE expires_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING 1)
       SELECT count(*)::int AS n FROM d`,
      [now, limit],
    );
    return row.n;
  }

  async deleteById(id: string): Promise<void> {
    await this.tx.manager.delete(PersonSession, { id });
  }

  async deleteByTokenHash(tokenHash: string): Promise<void> {
    await this.tx.manager.delete(PersonSession, { tokenHash });
  }
}
