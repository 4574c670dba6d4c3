import Redis from 'ioredis';
import { Client } from 'pg';

import type { AppConfig } from '../config/app.config';

function fail(message: string): never {
  throw Object.assign(new Error(message), { preflight: true });
}

function safeUrl(url: string): string {
  const u = new URL(url);
  u.password = u.password ? '***' : '';
  return u.toString();
}

/**
 * Checks Postgres and Redis before Nest boots, so a missing service is one clear line
 * (what to start) instead of a retry loop and a stack trace. Creates the database if the
 * server is up but the database does not exist yet.
 */
export async function preflight(config: AppConfig): Promise<void> {
  const target = new URL(config.databaseUrl);
  const dbName = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(config.databaseUrl);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString(), connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    fail(
      `Cannot reach PostgreSQL at ${safeUrl(config.databaseUrl)} (${(err as Error).message}). ` +
        'Start it (e.g. `pg_ctlcluster 15 main start`) or run `docker compose up -d postgres redis`, or set DATABASE_URL.',
    );
  }
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [dbName]);
    if (exists.rowCount === 0) {
      await client.query(`CREATE DATABASE "${dbName.replace(/"/g, '""')}"`);
    }
  } finally {
    await client.end();
  }
  const redis = new Redis(config.redisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 3000,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    fail(
      `Cannot reach Redis at ${safeUrl(config.redisUrl)} (${(err as Error).message}). ` +
        'Start it (e.g. `redis-server --daemonize yes`) or run `docker compose up -d postgres redis`, or set REDIS_URL.',
    );
  } finally {
    redis.disconnect();
  }
}
