import type { NestExpressApplication } from '@nestjs/platform-express';
import Redis from 'ioredis';
import { Client } from 'pg';

import type { AppConfig } from '../src/config/app.config';

export interface BenchOptions {
  durationS: number;
  /** Unmeasured run of the same requests before each scenario (JIT, caches, pool connections). */
  warmupS: number;
  connections: number;
  /**
   * Pre-minted session + token pairs for the complete scenario. null: sized from the create
   * scenario's rate (what the duration could use at that rate, 300…3000).
   */
  poolSize: number | null;
  /** Scenario ids to run (BENCH_ONLY=1,5); null: all. */
  only: string[] | null;
  /**
   * Buyer agents (each with its own mandate and buyer key) the complete scenario spreads its
   * tokens over. Payments of one buyer are serialised on purpose (a row lock keeps the daily cap
   * exact), so 1 measures one busy buyer and the default 10 measures the service.
   */
  buyers: number;
  /** Full-flow scenario: measured seconds (BENCH_FLOW_DURATION_S, default 15). */
  flowDurationS: number;
  /**
   * Full-flow scenario: virtual agents (BENCH_FLOW_AGENTS, default 20), agent i paying as buyer
   * i % buyers, so with more agents than buyers one buyer's calls of different agents interleave.
   */
  flowAgents: number;
  /** Interleaved rounds of baseline ⇄ full flow (BENCH_ROUNDS, default 3); medians are reported. */
  rounds: number;
  /**
   * Settlements per second of the webhook-latency scenario (BENCH_WEBHOOK_RATE). null: 100, or
   * half of what scenario 5 measured when that is lower (the highest rate this machine holds with
   * headroom; above it the scenario measures a backlog, not the pipeline).
   */
  webhookRate: number | null;
  /** Long mode: seconds of sustained full flow with RSS sampled (BENCH_SOAK_S, default 0 = off). */
  soakS: number;
  /** Long mode: complete p50 at this many stored intents vs. now (BENCH_SEED_INTENTS, default 0 = off). */
  seedIntents: number;
  /** The two-instance scenario (BENCH_TWO_INSTANCES, default true). */
  twoInstances: boolean;
  databaseUrl: string;
  redisUrl: string;
  queuePrefix: string;
}

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') {
    return fallback;
  }
  if (!/^\d+$/.test(raw) || Number(raw) < 1) {
    throw new Error(`${name} must be a positive integer (got "${raw}")`);
  }
  return Number(raw);
}

function nonNegativeInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') {
    return fallback;
  }
  if (!/^\d+$/.test(raw)) {
    throw new Error(`${name} must be an integer >= 0 (got "${raw}")`);
  }
  return Number(raw);
}

/** BENCH_* knobs, with defaults sized for a ~1.5 minute run on a small machine. */
export function benchOptions(): BenchOptions {
  const databaseUrl =
    process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/payments_bench';
  // The database is dropped and recreated on every run: refuse anything not obviously a bench database.
  if (!/bench/i.test(new URL(databaseUrl).pathname)) {
    throw new Error(
      `BENCH_DATABASE_URL must name a database containing "bench" (got ${databaseUrl})`,
    );
  }
  return {
    durationS: positiveInt('BENCH_DURATION_S', 10),
    warmupS: nonNegativeInt('BENCH_WARMUP_S', 2),
    connections: positiveInt('BENCH_CONNECTIONS', 20),
    poolSize: process.env.BENCH_COMPLETE_POOL ? positiveInt('BENCH_COMPLETE_POOL', 3000) : null,
    only: process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',').map((s) => s.trim()) : null,
    buyers: positiveInt('BENCH_BUYERS', 10),
    flowDurationS: positiveInt('BENCH_FLOW_DURATION_S', 15),
    flowAgents: positiveInt('BENCH_FLOW_AGENTS', 20),
    rounds: positiveInt('BENCH_ROUNDS', 3),
    webhookRate: process.env.BENCH_WEBHOOK_RATE ? positiveInt('BENCH_WEBHOOK_RATE', 100) : null,
    soakS: nonNegativeInt('BENCH_SOAK_S', 0),
    seedIntents: nonNegativeInt('BENCH_SEED_INTENTS', 0),
    twoInstances: process.env.BENCH_TWO_INSTANCES !== 'false',
    databaseUrl,
    redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    queuePrefix: 'bench',
  };
}

/**
 * The app reads its configuration from process.env when AppModule boots, so this runs before
 * anything under src/ is loaded. DAILY_CAP_PAISE is lifted so the buyer's daily cap never
 * declines a benchmark payment, and the rate limits (per credential, per public address) are
 * lifted so the bench measures the work behind them, not the limiter's 429s: every request comes
 * from one address and a handful of keys. The limiter itself still runs on every request.
 */
export function applyAppEnv(opts: BenchOptions): void {
  Object.assign(process.env, {
    DATABASE_URL: opts.databaseUrl,
    REDIS_URL: opts.redisUrl,
    LOG_LEVEL: 'silent',
    MODE: 'test',
    QUEUE_PREFIX: opts.queuePrefix,
    DAILY_CAP_PAISE: '1000000000000000',
    RATE_LIMIT_CREDENTIAL_PER_S: '1000000',
    RATE_LIMIT_PUBLIC_PER_S: '1000000',
    RATE_LIMIT_PUBLIC_BURST: '1000000',
    RUN_MIGRATIONS: 'false',
  });
}

/** DROP DATABASE … WITH (FORCE) (Postgres 13+), so a leftover session from an earlier run cannot block it. */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  const target = new URL(databaseUrl);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/** Removes the bench queue prefix's keys, so jobs of an earlier run (pointing at rows that no longer exist) do not run. */
export async function clearQueues(redisUrl: string, prefix: string): Promise<number> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  let removed = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) {
        removed += await redis.del(...keys);
      }
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return removed;
}

export interface RunningApp {
  app: NestExpressApplication;
  url: string;
  config: AppConfig;
}

/** The table the baseline route inserts into (not a migration: it exists only in the bench database). */
export const BASELINE_TABLE = 'bench_baseline';

/** Fresh database, migrations and the baseline table; Redis keys of earlier runs removed. */
export async function prepareDatabase(opts: BenchOptions): Promise<void> {
  // Loaded only now: src/ must see the environment applyAppEnv set.
  const { loadConfig } = await import('../src/config/app.config');
  const { preflight } = await import('../src/database/preflight');
  const { migrate } = await import('../src/database/migrate');
  await dropDatabase(opts.databaseUrl);
  await clearQueues(opts.redisUrl, opts.queuePrefix);
  await preflight(loadConfig());
  await migrate(opts.databaseUrl);
  const db = new Client({ connectionString: opts.databaseUrl });
  await db.connect();
  try {
    await db.query(
      `CREATE TABLE ${BASELINE_TABLE} (id bigserial PRIMARY KEY, note text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`,
    );
  } finally {
    await db.end();
  }
}

/** The real AppModule on a free port of this process, configured from process.env (applyAppEnv). */
export async function startInstance(): Promise<RunningApp> {
  const { APP_CONFIG } = await import('../src/config/app.config');
  const { NestFactory } = await import('@nestjs/core');
  const { AppModule } = await import('../src/app.module');
  const { configureApp } = await import('../src/app.setup');
  const app = await NestFactory.create<NestExpressApplication>(AppModule, {
    bodyParser: false,
    logger: false,
  });
  configureApp(app, { quietLogs: true });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as { port: number };
  const url = `http://127.0.0.1:${port}`;
  const config = app.get<AppConfig>(APP_CONFIG);
  // Links the service prints (authorization_url, permalink_url) point at this instance.
  config.baseUrl = url;
  config.appUrl = `${url}/app`;
  return { app, url, config };
}

/** Fresh database, migrations, then the real AppModule in this process on a free port. */
export async function bootApp(opts: BenchOptions): Promise<RunningApp> {
  await prepareDatabase(opts);
  return startInstance();
}
