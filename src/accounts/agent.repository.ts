import { Injectable } from '@nestjs/common';
import { EntityManager, In, IsNull } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';

import { Cursor, newestFirst } from '../common/pagination';
import { sql, SqlFragment, SqlOperand } from '../database/fragment';
import { personalRows } from '../database/personal-rows';
import { Tx } from '../database/tx';
import { Agent } from './entities/agent.entity';

/**
 * SQL on agents for another owner's statement (docs/architecture.md "Table owners"): fragments of a
 * subquery or CTE body, given what they read (a column of the enclosing statement via `col()`, or a
 * value via `param()` or the `sql` tag), which the caller renders with its statement.
 */
export const agentParts = {
  /**
   * The buyer agent locked for a payment (the lock order's buyer step): id, workspace_id, name and
   * status (src/accounts/party-lifecycle.ts).
   */
  lockForPayment: (id: SqlOperand): SqlFragment =>
    sql`SELECT id, workspace_id, name, status FROM agents WHERE id = ${id} FOR NO KEY UPDATE`,
  /** An agent's id, workspace_id, name and status, not locked. */
  facts: (id: SqlOperand): SqlFragment =>
    sql`SELECT id, workspace_id, name, status FROM agents WHERE id = ${id}`,
  /** Agents' id, workspace_id, name and status, for an array of ids, not locked. */
  factsOfMany: (ids: SqlOperand): SqlFragment =>
    sql`SELECT id, workspace_id, name, status FROM agents WHERE id = ANY(${ids})`,
  /** Enabled agents (id, workspace_id, name, role, created_at, status), as a derived table's query. */
  enabled: (): SqlFragment =>
    sql`SELECT id, workspace_id, name, role, created_at, status FROM agents WHERE disabled_at IS NULL`,
  /** True when the agent exists and is enabled. */
  isEnabled: (id: SqlOperand): SqlFragment =>
    sql`EXISTS (SELECT 1 FROM agents a WHERE a.id = ${id} AND a.disabled_at IS NULL)`,
  /** An agent's name, as a scalar subquery. */
  nameOf: (id: SqlOperand): SqlFragment => sql`(SELECT name FROM agents WHERE id = ${id})`,
};

/** Personal data (src/personal-data): a workspace's agents, and disabling them on erasure. */
export const personalDataAgents = {
  all(m: EntityManager, workspaceId: string): Promise<Agent[]> {
    return m.find(Agent, { where: { workspaceId }, order: { createdAt: 'ASC', id: 'ASC' } });
  },
  /** Disables every agent of the workspace and blanks their names; returns their ids. */
  async disableAll(m: EntityManager, workspaceId: string, now: Date): Promise<string[]> {
    const rows = await m.query<{ id: string }[]>(
      `WITH u AS (UPDATE agents SET disabled_at = COALESCE(disabled_at, $2), name = 'Erased agent',
                          status = 'disabled'
                   WHERE workspace_id = $1 RETURNING id)
       SELECT id FROM u`,
      [workspaceId, now],
    );
    return rows.map((r) => r.id);
  },
};

/** The enabled agent holding this credential (its hash), or null: the credential lookup. */
export function findAgentByCredentialHash(m: EntityManager, hash: string): Promise<Agent | null> {
  return m.findOneBy(Agent, { credentialHash: hash, disabledAt: IsNull() });
}

/** The owner of agents (docs/architecture.md "Table owners"); AccountsModule exports it. */
@Injectable()
export class AgentRepository {
  constructor(private readonly tx: Tx) {}

  async insert(agent: Agent): Promise<void> {
    await this.tx.manager.insert(Agent, agent);
  }

  findById(id: string): Promise<Agent | null> {
    return this.tx.manager.findOneBy(Agent, { id });
  }

  /** An agent of this workspace, disabled or not. */
  findInWorkspace(workspaceId: string, id: string): Promise<Agent | null> {
    return this.tx.manager.findOneBy(Agent, { id, workspaceId });
  }

  /** An enabled agent of this workspace. */
  findActive(workspaceId: string, id: string): Promise<Agent | null> {
    return this.tx.manager.findOneBy(Agent, { id, workspaceId, disabledAt: IsNull() });
  }

  /** An enabled agent of any workspace. */
  findEnabled(id: string): Promise<Agent | null> {
    return this.tx.manager.findOneBy(Agent, { id, disabledAt: IsNull() });
  }

  /** Agents of any workspace, disabled ones included; unknown ids are left out. */
  findByIds(ids: string[]): Promise<Agent[]> {
    return ids.length === 0 ? Promise.resolve([]) : this.tx.manager.findBy(Agent, { id: In(ids) });
  }

  /** The oldest enabled agent with this name in the workspace. */
  findActiveByName(workspaceId: string, name: string): Promise<Agent | null> {
    return this.tx.manager.findOne(Agent, {
      where: { workspaceId, name, disabledAt: IsNull() },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  /** A workspace's enabled agents, newest first, limit + 1 rows (for toPage). */
  pageActive(workspaceId: string, limit: number, cursor: Cursor | null): Promise<Agent[]> {
    const qb = this.tx.manager
      .createQueryBuilder(Agent, 'a')
      .where('a.workspace_id = :workspaceId AND a.disabled_at IS NULL', { workspaceId });
    return newestFirst(qb, 'a', limit, cursor).getMany();
  }

  /** SELECT … FOR NO KEY UPDATE (the lock order's buyer step: docs/architecture.md). */
  lock(id: string): Promise<Agent | null> {
    return this.tx.manager.findOne(Agent, { where: { id }, lock: { mode: 'for_no_key_update' } });
  }

  async update(id: string, changes: QueryDeepPartialEntity<Agent>): Promise<void> {
    await this.tx.manager.update(Agent, { id }, changes);
  }

  /** An agent's name, or its id when there is no such agent. */
  async nameOf(id: string): Promise<string> {
    return (await this.findById(id))?.name ?? id;
  }
}

/** Erasure's reach into agents: rows that can be a person's (docs/personal-data.md "The personal-data map"). */
export const agentsPersonalRows = personalRows('agents', 't.workspace_id = s.ws');
