import { Client } from 'pg';

import { RUN_DATABASE_PREFIX, TEST_DATABASE_URL } from './test-db';

/** Drops this run's per-file clones (test/support/app.ts) and, when the name was ours, the template. */
export default async function globalTeardown(): Promise<void> {
  const name = decodeURIComponent(new URL(TEST_DATABASE_URL).pathname.slice(1));
  const admin = new URL(TEST_DATABASE_URL);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const clones = await client.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE $1`,
      [`${name.replace(/_/g, '\\_')}\\_f\\_%`],
    );
    for (const { datname } of clones.rows) {
      await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
    if (name.startsWith(RUN_DATABASE_PREFIX)) {
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    }
  } finally {
    await client.end();
  }
}
