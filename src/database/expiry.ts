import type { EntityManager } from 'typeorm';

import { col, sql } from './fragment';
import { queryFragment } from './sql';

/**
 * Deletes the rows of `table` whose `expires_at` has passed, oldest first, at most `limit` (null:
 * all of them), skipping rows another instance is deleting; returns how many. For the owners of
 * tables the retention job (src/retention) empties by expiry: each calls it with its own table.
 */
export async function deleteExpiredRows(
  manager: EntityManager,
  target: { table: string; key: string },
  now: Date,
  limit: number | null,
): Promise<number> {
  const table = col(target.table);
  const key = col(target.key);
  const [row] = await queryFragment<{ n: number }[]>(
    manager,
    sql`WITH d AS (
       DELETE FROM ${table} WHERE ${key} IN (
         SELECT ${key} FROM ${table} WHERE expires_at <= ${now}
          ORDER BY expires_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
       RETURNING 1)
     SELECT count(*)::int AS n FROM d`,
  );
  return row.n;
}
