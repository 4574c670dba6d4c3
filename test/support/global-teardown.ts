import { Client } from 'pg';
import { TEST_DATABASE_URL } from './test-db';

/** Drops the per-file database clones (test/support/app.ts); the template stays for inspection. */
export default async function globalTeardown(): Promise<void> {
  const name = decodeURIComponent(new URL(TEST_DATABASE_URL).pathname.slice(1));
  const admin = new URL(TEST_DATABASE_URL);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const clones = await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`${name}\\_f\\_%`]);
    for (const { datname } of clones.rows) {
      await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
  } finally {
    await client.end();
  }
}
