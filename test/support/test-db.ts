import { randomBytes } from 'node:crypto';

/**
 * The test database of this run. Global setup names it once (payments_test_<pid>_<random>, or
 * TEST_DATABASE_URL when set) and exports it through the environment, so jest workers agree and
 * two copies of the suite on one machine never share (or drop) each other's database.
 */
function runDatabaseUrl(): string {
  if (process.env.TEST_DATABASE_URL) {
    return process.env.TEST_DATABASE_URL;
  }
  const url = `postgres://postgres@127.0.0.1:5432/${RUN_DATABASE_PREFIX}${process.pid}_${randomBytes(4).toString('hex')}`;
  process.env.TEST_DATABASE_URL = url;
  return url;
}

/** Databases of runs are named with this prefix; global setup drops those of runs no longer alive. */
export const RUN_DATABASE_PREFIX = 'payments_test_r';
export const TEST_DATABASE_URL = runDatabaseUrl();
export const TEST_REDIS_URL =
  process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
