import { AddressInfo, createServer } from 'node:net';

import { Client } from 'pg';
import request from 'supertest';

import { OUTAGE_RETRY_AFTER_SECONDS } from '../../src/common/errors/outage';
import { randomToken } from '../../src/common/ids';
import { CHECK_CACHE_MS } from '../../src/health/readiness';
import { startApp, TestApp, testDatabaseUrl } from '../support/app';
import { TEST_DATABASE_URL } from '../support/test-db';

/**
 * Liveness and readiness probes against real backing services going away: a Redis port nobody
 * listens on, this file's Postgres database refusing connections (ALLOW_CONNECTIONS false + every
 * backend terminated, as in outage.e2e-spec.ts), and a database whose last migration is not
 * recorded. /health/live stays 200 throughout; /health/ready answers 503 + Retry-After, naming
 * the failed check in fixed words, and 200 again once the cause is gone, without a restart.
 */

const RETRY_AFTER = String(OUTAGE_RETRY_AFTER_SECONDS);
const LAST_MIGRATION = 'Operators1763700001700';

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as AddressInfo).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

async function eventually(what: string, check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

function adminClient(url: string): Client {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  return new Client({ connectionString: admin.toString() });
}

/** A fresh copy of the migrated template database (as test/support/app.ts makes per file). */
async function cloneOfTemplate(): Promise<string> {
  const templateName = decodeURIComponent(new URL(TEST_DATABASE_URL).pathname.slice(1));
  const name = `${templateName}_h_${randomToken(8).toLowerCase()}`;
  const admin = adminClient(TEST_DATABASE_URL);
  await admin.connect();
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${templateName}"`);
        break;
      } catch (err) {
        if (attempt >= 20) {
          throw err;
        }
        await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
      }
    }
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

function expectNotReady(res: request.Response, failed: Record<string, string>): void {
  expect(res.status).toBe(503);
  expect(res.headers['retry-after']).toBe(RETRY_AFTER);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.body.status).toBe('error');
  for (const [check, message] of Object.entries(failed)) {
    expect(res.body.error[check]).toEqual({
      status: 'down',
      message,
      responseTime: expect.any(Number) as unknown,
    });
    expect(res.body.details[check].status).toBe('down');
  }
  // Fixed words only: no driver message, host, port or SQLSTATE on a public probe.
  expect(res.text).not.toMatch(/ECONN|127\.0\.0\.1|SQLSTATE|57P01|55000|accepting|refused/i);
}

describe('probes, services up', () => {
  let t: TestApp;

  beforeAll(async () => {
    // A public limit of one request a second: the probes must not be limited, /health still is.
    t = await startApp({
      rateLimitPublicPerSecond: 1,
      rateLimitPublicBurst: 1,
      // A count must not fail open because a loaded machine answered late (rate-limit.e2e-spec).
      rateLimitRedisTimeoutMs: 5_000,
    });
  });
  afterAll(() => t.close());

  it('/health/live answers 200 {"status":"ok"} without looking at anything', async () => {
    const res = await request(t.url).get('/health/live').expect(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('/health/ready answers 200 with every check up and the migrations all applied', async () => {
    const res = await request(t.url).get('/health/ready').expect(200);
    const up = { status: 'up', responseTime: expect.any(Number) as unknown };
    const [{ n }] = await t.db.query<{ n: number }[]>(
      'SELECT count(*)::int AS n FROM schema_migrations',
    );
    expect(res.body).toEqual({
      status: 'ok',
      info: { postgres: up, redis: up, migrations: { ...up, applied: n } },
      error: {},
      details: { postgres: up, redis: up, migrations: { ...up, applied: n } },
    });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['ratelimit-limit']).toBeUndefined();
  });

  it('probes are never rate-limited (a 429 would take a healthy instance out), /health still is', async () => {
    const probes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        request(t.url).get(i % 2 === 0 ? '/health/live' : '/health/ready'),
      ),
    );
    expect(probes.map((r) => r.status)).toEqual(Array(20).fill(200));
    const health = await Promise.all(
      Array.from({ length: 5 }, () => request(t.url).get('/health')),
    );
    expect(health.map((r) => r.status)).toContain(429);
  });

  it('keeps /health as it was (both services, its own body)', async () => {
    await new Promise((r) => setTimeout(r, 1100)); // past the public limit's window
    const res = await request(t.url).get('/health').expect(200);
    expect(res.body).toEqual({
      status: 'ok',
      mode: 'test',
      checks: { postgres: 'ok', redis: 'ok' },
    });
  });
});

describe('probes, Redis unreachable', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({ redisUrl: `redis://127.0.0.1:${await closedPort()}`, runWorkers: false });
  });
  afterAll(() => t.close());

  it('ready is 503 with Retry-After naming redis; live stays 200', async () => {
    const t0 = Date.now();
    const res = await request(t.url).get('/health/ready');
    expect(Date.now() - t0).toBeLessThan(2500);
    expectNotReady(res, { redis: 'unreachable' });
    expect(res.body.info.postgres.status).toBe('up');
    expect(res.body.info.migrations.status).toBe('up');
    await request(t.url).get('/health/live').expect(200);
  });
});

describe('probes, Postgres unreachable', () => {
  let t: TestApp;
  let admin: Client;
  let dbName: string;

  beforeAll(async () => {
    t = await startApp({ runWorkers: false });
    const url = await testDatabaseUrl();
    dbName = decodeURIComponent(new URL(url).pathname.slice(1));
    admin = adminClient(url);
    await admin.connect();
  });
  afterAll(async () => {
    await admin.query(`ALTER DATABASE "${dbName}" WITH ALLOW_CONNECTIONS true`);
    await admin.end();
    await t.close();
  });

  it('ready is 503 while the database refuses connections, 200 again once it accepts them; live stays 200', async () => {
    await request(t.url).get('/health/ready').expect(200);
    await admin.query(`ALTER DATABASE "${dbName}" WITH ALLOW_CONNECTIONS false`);
    await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [dbName],
    );
    await new Promise((r) => setTimeout(r, CHECK_CACHE_MS));
    const t0 = Date.now();
    const down = await request(t.url).get('/health/ready');
    expect(Date.now() - t0).toBeLessThan(2500);
    expectNotReady(down, { postgres: 'unreachable', migrations: 'unreachable' });
    expect(down.body.info.redis.status).toBe('up');
    await request(t.url).get('/health/live').expect(200);

    await admin.query(`ALTER DATABASE "${dbName}" WITH ALLOW_CONNECTIONS true`);
    await eventually('readiness to return', async () => {
      const res = await request(t.url).get('/health/ready');
      return res.status === 200;
    });
  });
});

describe('probes, a migration pending', () => {
  let t: TestApp;
  let url: string;

  beforeAll(async () => {
    // The schema is complete but the database does not record the last migration: to this build
    // it is pending, as on a database an older release migrated (RUN_MIGRATIONS=false).
    url = await cloneOfTemplate();
    const db = new Client({ connectionString: url });
    await db.connect();
    await db.query('DELETE FROM schema_migrations WHERE name = $1', [LAST_MIGRATION]);
    await db.end();
    t = await startApp({ databaseUrl: url, runMigrations: false, runWorkers: false });
  });
  afterAll(async () => {
    await t.close();
    const admin = adminClient(url);
    await admin.connect();
    await admin.query(
      `DROP DATABASE IF EXISTS "${decodeURIComponent(new URL(url).pathname.slice(1))}" WITH (FORCE)`,
    );
    await admin.end();
  });

  it('ready is 503 naming the pending migration until it is recorded; live stays 200', async () => {
    const res = await request(t.url).get('/health/ready');
    expectNotReady(res, { migrations: `pending: ${LAST_MIGRATION}` });
    expect(res.body.info.postgres.status).toBe('up');
    expect(res.body.info.redis.status).toBe('up');
    await request(t.url).get('/health/live').expect(200);

    await t.db.query('INSERT INTO schema_migrations ("timestamp", name) VALUES ($1, $2)', [
      1763700001700,
      LAST_MIGRATION,
    ]);
    await eventually('readiness once the migration is recorded', async () => {
      const again = await request(t.url).get('/health/ready');
      return again.status === 200;
    });
  });
});
