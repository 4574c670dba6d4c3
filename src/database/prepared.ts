import { createHash } from 'node:crypto';

import type { EntityManager } from 'typeorm';

export interface PgClient {
  query(q: {
    name: string;
    text: string;
    values: unknown[];
  }): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

const names = new Map<string, string>();

/** The prepared statement's name for a text: a hash of it, so one text has one name. */
export function nameOf(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `q_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}

/**
 * Sends `text` as a named prepared statement on the connection of `manager`'s transaction (its
 * query runner) and returns the rows; a manager with no transaction sends it as TypeORM would.
 * In a transaction the statement is written before this returns, so statements are sent in the
 * order they are called, and one called before the previous one's answer is awaited shares its
 * round trip (pg's pipeline mode, docs/architecture.md "Round trips").
 */
export function queryPrepared(
  manager: EntityManager,
  text: string,
  values: unknown[],
): Promise<unknown[]> {
  const runner = manager.queryRunner;
  if (!runner || !runner.isTransactionActive) {
    return manager.query<unknown[]>(text, values);
  }
  const connected = (runner as unknown as { databaseConnection?: PgClient }).databaseConnection;
  const send = (client: PgClient) =>
    client.query({ name: nameOf(text), text, values }).then((r) => r.rows);
  return connected ? send(connected) : runner.connect().then((c) => send(c as PgClient));
}
