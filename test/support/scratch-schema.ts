import type { QueryRunner } from 'typeorm';

import type { TestApp } from './app';

/**
 * Runs `run` in a schema of its own (`migration_scratch`, first on the search path) inside a
 * transaction that is always rolled back: a migration's `up` and `down` can be tried on scratch
 * copies of its tables without changing the shared test database.
 */
export async function inScratchSchema(
  t: TestApp,
  run: (qr: QueryRunner) => Promise<void>,
): Promise<void> {
  const qr = t.db.createQueryRunner();
  await qr.connect();
  await qr.startTransaction();
  try {
    await qr.query(`CREATE SCHEMA migration_scratch`);
    await qr.query(`SET LOCAL search_path TO migration_scratch`);
    await run(qr);
  } finally {
    await qr.rollbackTransaction();
    await qr.release();
  }
}
