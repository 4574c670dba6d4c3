import { Client } from 'pg';

import { migrate } from '../../src/database/migrate';
import { ACP_SKIP_LINE, officialAcpSchemasAvailable } from './acp-schema';
import { RUN_DATABASE_PREFIX, TEST_DATABASE_URL } from './test-db';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Creates this run's test database and runs the real migrations once (no synchronize). Importing
 * test-db names the database and puts it in process.env, which the jest workers inherit. Databases
 * left by earlier runs whose process is gone are dropped; a run still going is left alone.
 */
export default async function globalSetup(): Promise<void> {
  // Once per run: responses are still validated against openapi/openapi.json (test/support/acp-schema.ts).
  if (!officialAcpSchemasAvailable()) {
    process.stdout.write(`\n${ACP_SKIP_LINE}\n`);
  }
  const name = decodeURIComponent(new URL(TEST_DATABASE_URL).pathname.slice(1));
  const admin = new URL(TEST_DATABASE_URL);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const stale = await client.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE $1`,
      [`${RUN_DATABASE_PREFIX}%`],
    );
    for (const { datname } of stale.rows) {
      const pid = Number(/^payments_test_r(\d+)_/.exec(datname)?.[1]);
      if (Number.isInteger(pid) && !alive(pid)) {
        await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
      }
    }
    // Per-file clones of this database left by an earlier run with the same explicit name.
    const clones = await client.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE $1`,
      [`${name.replace(/_/g, '\\_')}\\_f\\_%`],
    );
    for (const { datname } of clones.rows) {
      await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  await migrate(TEST_DATABASE_URL);
}
