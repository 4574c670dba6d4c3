import type { EntityManager } from 'typeorm';

/**
 * Erasure's reach into a table (docs/personal-data.md "The personal-data map"): the table's owner
 * says which rows can be the person's (its scope, SQL over its own table only), the map
 * (src/personal-data/data-map.ts) says which columns hold personal data and what erasure does to
 * them. The owner exports one store built here; the erasure walk reads the map's columns of the
 * rows in scope, finds the person's identifiers in code, and writes back only what changed.
 */

/** The ids a scope reads: `s.ws`, `s.person`, `s.agents`, `s.creds`, `s.intents`, `s.sessions`. */
export interface PersonScope {
  workspaceId: string;
  personId: string;
  /** The workspace's agents. */
  agentIds: string[];
  /** Owners of stored answers: the person, the workspace's API keys, protocol keys and agents. */
  credentialIds: string[];
  /** Payment intents the workspace paid or received. */
  intentIds: string[];
  /** Checkout sessions a delegated token of the workspace's buyer agents names. */
  sessionIds: string[];
}

export type StoredColumnType = 'text' | 'jsonb' | 'text[]' | 'bytea';

export interface PersonalRow {
  key: string;
  values: Record<string, unknown>;
}

export interface PersonalRowStore {
  table: string;
  /** The named columns of every row in the person's scope. */
  read(m: EntityManager, scope: PersonScope, columns: string[]): Promise<PersonalRow[]>;
  /** Writes new values of some columns of one row. */
  write(
    m: EntityManager,
    key: string,
    changes: { column: string; type: StoredColumnType; value: unknown }[],
  ): Promise<void>;
  /** Deletes one row. */
  remove(m: EntityManager, key: string): Promise<void>;
}

const IDENT = /^[a-z_][a-z0-9_]*$/;

function ident(name: string): string {
  if (!IDENT.test(name)) {
    throw new Error(`not a column name: ${name}`);
  }
  return `"${name}"`;
}

/**
 * A store for `table` keyed by its `id` column; `scope` is the owner's WHERE clause over `t` (the
 * table) and `s` (the PersonScope's ids). The table name and scope are the owner's literals.
 */
export function personalRows(table: string, scope: string): PersonalRowStore {
  const name = ident(table);
  return {
    table,
    async read(m, p, columns) {
      if (columns.length === 0) {
        return [];
      }
      const rows = await m.query<Record<string, unknown>[]>(
        `WITH s AS (SELECT $1::text AS ws, $2::text AS person, $3::text[] AS agents,
                           $4::text[] AS creds, $5::text[] AS intents, $6::text[] AS sessions)
         SELECT t.id::text AS __key, ${columns.map((c) => `t.${ident(c)}`).join(', ')}
           FROM ${name} t, s
          WHERE ${scope}
          ORDER BY t.id`,
        [p.workspaceId, p.personId, p.agentIds, p.credentialIds, p.intentIds, p.sessionIds],
      );
      return rows.map(({ __key, ...values }) => ({ key: String(__key), values }));
    },
    async write(m, key, changes) {
      if (changes.length === 0) {
        return;
      }
      const sets = changes.map(
        (c, i) => `${ident(c.column)} = $${i + 2}::${c.type === 'text[]' ? 'text[]' : c.type}`,
      );
      await m.query(`UPDATE ${name} SET ${sets.join(', ')} WHERE id = $1`, [
        key,
        ...changes.map((c) =>
          c.type === 'jsonb' && c.value !== null ? JSON.stringify(c.value) : c.value,
        ),
      ]);
    },
    async remove(m, key) {
      await m.query(`DELETE FROM ${name} WHERE id = $1`, [key]);
    },
  };
}
