import { Client } from 'pg';
import { migrate } from '../../src/database/migrate';
import { TEST_DATABASE_URL } from './test-db';

/** Drops and recreates the test database, then runs the real migrations once (no synchronize). */
export default async function globalSetup(): Promise<void> {
  const target = new URL(TEST_DATABASE_URL);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(TEST_DATABASE_URL);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    // Per-file clones left by earlier runs (see test/support/app.ts).
    const clones = await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`${name}\\_f\\_%`]);
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
