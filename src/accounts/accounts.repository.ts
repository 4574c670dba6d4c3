import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { IsNull } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';

import { CredentialKind } from '../common/credentials/revocable-credentials';
import { newId } from '../common/ids';
import { param, sql, SqlFragment, SqlOperand, textOf } from '../database/fragment';
import { personalRows } from '../database/personal-rows';
import { queryFragment } from '../database/sql';
import { Tx } from '../database/tx';
import { deleteSessionsOf } from '../web/person-session.repository';
import { agentParts } from './agent.repository';
import { ApiKey } from './entities/api-key.entity';
import { Person } from './entities/person.entity';
import { Workspace } from './entities/workspace.entity';
import type { AgentStatus, PartyState, WorkspaceStatus } from './party-lifecycle';

/** API keys for RevocableCredentials (list, revoke). */
export const API_KEYS: CredentialKind<ApiKey> = {
  entity: ApiKey,
  label: 'API key',
  auditPrefix: 'api_key',
};

/** SQL on persons and workspaces for another owner's statement (docs/architecture.md "Table owners"). */
export const accountParts = {
  /** Persons with their workspace: person_id, email, name, role, workspace_id, workspace_name, workspace_kind. */
  personsWithWorkspace: (): SqlFragment =>
    sql`SELECT p.id AS person_id, p.email, p.name, p.role, w.id AS workspace_id, w.name AS workspace_name,
            w.kind AS workspace_kind
       FROM persons p JOIN workspaces w ON w.id = p.workspace_id`,
  /** A workspace's lifecycle status (src/accounts/party-lifecycle.ts), as a scalar subquery. */
  workspaceStatusOf: (id: SqlOperand): SqlFragment =>
    sql`(SELECT status FROM workspaces WHERE id = ${id})`,
};

/**
 * The lifecycle states (src/accounts/party-lifecycle.ts) of these agents and of their workspaces,
 * by agent id, not locked; unknown ids are left out.
 */
export async function partyStatesOf(
  m: EntityManager,
  agentIds: string[],
): Promise<Map<string, PartyState & { workspaceId: string }>> {
  const rows = await queryFragment<
    {
      id: string;
      workspaceId: string;
      agentStatus: AgentStatus;
      workspaceStatus: WorkspaceStatus;
    }[]
  >(
    m,
    sql`SELECT a.id, a.workspace_id AS "workspaceId", a.status AS "agentStatus",
               w.status AS "workspaceStatus"
          FROM (${agentParts.factsOfMany(param(agentIds))}) a JOIN workspaces w ON w.id = a.workspace_id`,
  );
  return new Map(rows.map((r) => [r.id, r]));
}

/** The live API key with this secret's hash, or null: the credential lookup. */
export function findLiveApiKeyByHash(m: EntityManager, hash: string): Promise<ApiKey | null> {
  return m.findOneBy(ApiKey, { secretHash: hash, revokedAt: IsNull() });
}

/** A person of the workspace by email (emails are stored lower-case). */
export async function findPersonInWorkspace(
  m: EntityManager,
  email: string,
  workspaceId: string,
): Promise<{ id: string; name: string } | null> {
  const [row] = await m.query<{ id: string; name: string }[]>(
    'SELECT id, name FROM persons WHERE email = $1 AND workspace_id = $2',
    [email.trim().toLowerCase(), workspaceId],
  );
  return row ?? null;
}

/** Persons' names by id; unknown ids are left out. */
export async function personNames(m: EntityManager, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) {
    return new Map();
  }
  const rows = await m.query<{ id: string; name: string }[]>(
    'SELECT id, name FROM persons WHERE id = ANY($1::text[])',
    [ids],
  );
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** Sets a workspace's kind (a forex partner's, an operator's). */
export async function setWorkspaceKind(
  m: EntityManager,
  workspaceId: string,
  kind: Workspace['kind'],
): Promise<void> {
  await m.query('UPDATE workspaces SET kind = $2 WHERE id = $1', [workspaceId, kind]);
}

/** True when the person is an operator of an operator workspace. */
export async function isOperatorPerson(m: EntityManager, personId: string): Promise<boolean> {
  const rows = await m.query<{ ok: boolean }[]>(
    `SELECT (p.role = 'operator' AND w.kind = 'operator') AS ok
       FROM persons p JOIN workspaces w ON w.id = p.workspace_id
      WHERE p.id = $1`,
    [personId],
  );
  return rows[0]?.ok === true;
}

/** The oldest operator workspace with this name, or a new one (inserted). */
export async function findOrCreateOperatorWorkspace(
  m: EntityManager,
  name: string,
): Promise<{ workspace: Workspace; created: boolean }> {
  const found = await m.findOne(Workspace, {
    where: { name, kind: 'operator' },
    order: { createdAt: 'ASC' },
  });
  if (found) {
    return { workspace: found, created: false };
  }
  const workspace = m.create(Workspace, { id: newId('ws'), name, kind: 'operator' });
  await m.insert(Workspace, workspace);
  return { workspace, created: true };
}

/** Inserts a person (an operator made by the sandbox). */
export async function insertPerson(m: EntityManager, person: Partial<Person>): Promise<void> {
  await m.insert(Person, m.create(Person, person));
}

/** A sign-up nobody came back to (the retention job, src/retention). */
export interface AbandonedSignup {
  workspaceId: string;
  personId: string;
}

/**
 * The retention schedule's abandoned sign-ups: a standard workspace created at or before `before`
 * whose one person has not signed in since then (last_signed_in_at, which the sign-up's own
 * session sets; created_at for persons from before that column), with no agent and no API key ever
 * used. Oldest first, workspace and person locked (SKIP LOCKED: instances share the work).
 */
export function abandonedSignups(
  m: EntityManager,
  before: Date,
  limit: number,
): Promise<AbandonedSignup[]> {
  return m.query(
    `SELECT w.id AS "workspaceId", p.id AS "personId"
       FROM workspaces w JOIN persons p ON p.workspace_id = w.id
      WHERE w.kind = 'standard' AND w.created_at <= $1
        AND COALESCE(p.last_signed_in_at, p.created_at) <= $1
        AND NOT EXISTS (SELECT 1 FROM persons o WHERE o.workspace_id = w.id AND o.id <> p.id)
        AND NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.workspace_id = w.id AND k.last_used_at IS NOT NULL)
        AND NOT EXISTS (SELECT 1 FROM (${textOf(agentParts.enabled())}) a WHERE a.workspace_id = w.id)
      ORDER BY w.created_at, w.id
      LIMIT $2
      FOR UPDATE OF w, p SKIP LOCKED`,
    [before, limit],
  );
}

/**
 * Deletes an abandoned sign-up: the person's sessions, the workspace's API keys, the person and the
 * workspace. Anything else that points at them (a disabled agent, a consent, an endpoint) makes
 * Postgres refuse (foreign keys): the caller runs this in a savepoint and keeps such a workspace.
 */
export async function deleteAbandonedSignup(m: EntityManager, s: AbandonedSignup): Promise<void> {
  await deleteSessionsOf(m, s.personId);
  await m.query('DELETE FROM api_keys WHERE workspace_id = $1', [s.workspaceId]);
  await m.query('DELETE FROM persons WHERE id = $1', [s.personId]);
  await m.query('DELETE FROM workspaces WHERE id = $1', [s.workspaceId]);
}

/** A person's own record as the "Your data" page shows it (src/personal-data). */
export interface PersonProfile {
  id: string;
  name: string;
  email: string;
  phone: string | null;
  role: string;
  createdAt: Date;
  workspace: { id: string; name: string; kind: string; createdAt: Date };
}

/**
 * Personal data (src/personal-data, docs/personal-data.md): the reads and writes a person's data
 * rights need on persons, workspaces and api_keys, in the caller's transaction.
 */
export const personalDataAccounts = {
  async profile(m: EntityManager, personId: string): Promise<PersonProfile | null> {
    const [r] = await m.query<
      {
        id: string;
        name: string;
        email: string;
        phone: string | null;
        role: string;
        created_at: Date;
        workspace_id: string;
        workspace_name: string;
        workspace_kind: string;
        workspace_created_at: Date;
      }[]
    >(
      `SELECT p.id, p.name, p.email, p.phone, p.role, p.created_at, w.id AS workspace_id,
              w.name AS workspace_name, w.kind AS workspace_kind, w.created_at AS workspace_created_at
         FROM persons p JOIN workspaces w ON w.id = p.workspace_id
        WHERE p.id = $1 AND p.erased_at IS NULL`,
      [personId],
    );
    return r
      ? {
          id: r.id,
          name: r.name,
          email: r.email,
          phone: r.phone,
          role: r.role,
          createdAt: new Date(r.created_at),
          workspace: {
            id: r.workspace_id,
            name: r.workspace_name,
            kind: r.workspace_kind,
            createdAt: new Date(r.workspace_created_at),
          },
        }
      : null;
  },

  /** True when another person signs in with this email (emails are stored lower-case). */
  async emailTaken(m: EntityManager, email: string, personId: string): Promise<boolean> {
    const rows = await m.query<unknown[]>('SELECT 1 FROM persons WHERE email = $1 AND id <> $2', [
      email,
      personId,
    ]);
    return rows.length > 0;
  },

  async correct(
    m: EntityManager,
    personId: string,
    c: { name: string; email: string; phone: string | null },
  ): Promise<void> {
    await m.query('UPDATE persons SET name = $2, email = $3, phone = $4 WHERE id = $1', [
      personId,
      c.name,
      c.email,
      c.phone,
    ]);
  },

  /** People of the workspace other than this one who are not erased. */
  async othersInWorkspace(m: EntityManager, workspaceId: string, personId: string) {
    const [r] = await m.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM persons
        WHERE workspace_id = $1 AND id <> $2 AND erased_at IS NULL`,
      [workspaceId, personId],
    );
    return r.n;
  },

  /**
   * Irreversible pseudonymisation of the person row: the id stays (records a law requires us to
   * keep point at it), name, email and phone go, and the password can never match (not scrypt).
   */
  async erasePerson(m: EntityManager, personId: string, now: Date): Promise<void> {
    await m.query(
      `UPDATE persons SET name = 'Erased person', email = 'erased-' || md5(id) || '@erased.invalid',
              phone = NULL, password_hash = 'erased', erased_at = $2
        WHERE id = $1`,
      [personId, now],
    );
  },

  /**
   * A workspace whose last person was erased: renamed, closed (src/accounts/party-lifecycle.ts),
   * records held until holdUntil.
   */
  async closeWorkspace(m: EntityManager, workspaceId: string, now: Date, holdUntil: Date) {
    await m.query(
      `UPDATE workspaces SET name = 'Erased workspace', erased_at = $2, legal_hold_until = $3,
              status = 'closed'
        WHERE id = $1`,
      [workspaceId, now, holdUntil],
    );
  },

  async apiKeys(m: EntityManager, workspaceId: string): Promise<ApiKey[]> {
    return m.find(ApiKey, { where: { workspaceId }, order: { createdAt: 'ASC', id: 'ASC' } });
  },

  /** Revokes every live API key of the workspace and blanks all key names; returns the revoked ids. */
  async revokeApiKeys(m: EntityManager, workspaceId: string, now: Date): Promise<string[]> {
    const rows = await m.query<{ id: string }[]>(
      `WITH u AS (UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $2), name = 'erased'
                   WHERE workspace_id = $1 RETURNING id)
       SELECT id FROM u`,
      [workspaceId, now],
    );
    return rows.map((r) => r.id);
  },
};

/**
 * The owner of workspaces, persons and api_keys (docs/architecture.md "Table owners"): AccountsService's
 * reads and writes on them, in the ambient transaction.
 */
@Injectable()
export class AccountsRepository {
  constructor(private readonly tx: Tx) {}

  /** Inserts a workspace and returns it. */
  async insertWorkspace(fields: Partial<Workspace>): Promise<Workspace> {
    const m = this.tx.manager;
    const workspace = m.create(Workspace, fields);
    await m.insert(Workspace, workspace);
    return workspace;
  }

  /** Inserts a person and returns it. */
  async insertPerson(fields: Partial<Person>): Promise<Person> {
    const m = this.tx.manager;
    const person = m.create(Person, fields);
    await m.insert(Person, person);
    return person;
  }

  findPersonById(id: string): Promise<Person | null> {
    return this.tx.manager.findOneBy(Person, { id });
  }

  /** The person with exactly this email (emails are stored lower-case). */
  findPersonByEmail(email: string): Promise<Person | null> {
    return this.tx.manager.findOneBy(Person, { email });
  }

  async updatePerson(id: string, changes: QueryDeepPartialEntity<Person>): Promise<void> {
    await this.tx.manager.update(Person, { id }, changes);
  }

  /** The retention job's "last seen" of a person. */
  async recordSignIn(personId: string, at: Date): Promise<void> {
    await this.tx.manager.query('UPDATE persons SET last_signed_in_at = $2 WHERE id = $1', [
      personId,
      at,
    ]);
  }

  /** Inserts an API key and returns it. */
  async insertApiKey(fields: Partial<ApiKey>): Promise<ApiKey> {
    const m = this.tx.manager;
    const key = m.create(ApiKey, fields);
    await m.insert(ApiKey, key);
    return key;
  }

  /** The API key with this id, as stored; throws when there is none. */
  apiKeyById(id: string): Promise<ApiKey> {
    return this.tx.manager.findOneByOrFail(ApiKey, { id });
  }

  /** Unrevoked keys of the workspace with this exact name, oldest first. */
  liveApiKeysByName(workspaceId: string, name: string): Promise<ApiKey[]> {
    return this.tx.manager.find(ApiKey, {
      where: { workspaceId, name, revokedAt: IsNull() },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }
}

/** Erasure's reach into api_keys: rows that can be a person's (docs/personal-data.md "The personal-data map"). */
export const apiKeysPersonalRows = personalRows('api_keys', 't.workspace_id = s.ws');

/** Erasure's reach into workspaces: rows that can be a person's (docs/personal-data.md "The personal-data map"). */
export const workspacesPersonalRows = personalRows('workspaces', 't.id = s.ws');
