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

/** host:port of a URL, with the service's default port when the URL has none. */
function hostPort(url: string, defaultPort: number): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || defaultPort}`;
}

/** How long one connection attempt may take before it counts as failed. */
const ATTEMPT_TIMEOUT_MS = 3000;

/** Pause between two attempts (BootWait.retryMs), unless the bound is nearer. */
export const BOOT_RETRY_MS = 2000;

export interface BootWait {
  /** The bound: how long the boot waits for Postgres and Redis together (BOOT_DEPENDENCY_WAIT_MS). */
  waitMs: number;
  /** Pause between attempts. */
  retryMs: number;
  /** Where the per-attempt line goes (stderr: the logger is not up yet). */
  log: (line: string) => void;
}

/**
 * A failure worth waiting through: the server is not there yet (refused, unreachable, not
 * resolvable yet, timed out, reset) or is still starting or shutting down. Anything else (a wrong
 * password, a database name Postgres refuses) is answered at once: waiting would not fix it.
 */
function transient(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (
    [
      'ECONNREFUSED',
      'ECONNRESET',
      'EHOSTUNREACH',
      'ENETUNREACH',
      'ENOTFOUND',
      'EAI_AGAIN',
      'ETIMEDOUT',
      'EPIPE',
    ].includes(code)
  ) {
    return true;
  }
  // 57P03 cannot_connect_now (starting up, shutting down, recovering); 53300 too_many_connections.
  if (code === '57P03' || code === '53300' || code === '57P01') {
    return true;
  }
  const message = typeof e.message === 'string' ? e.message : '';
  return /timeout|timed out|terminated unexpectedly|Connection terminated|connection is closed|ECONNREFUSED|ECONNRESET|^LOADING/i.test(
    message,
  );
}

/** The failure in a few words for the log line: "connection refused", "timed out", or the message. */
function why(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  switch (e.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    case 'ECONNRESET':
      return 'connection reset';
  }
  const message = typeof e.message === 'string' ? e.message : String(err);
  if (/timeout|timed out/i.test(message)) {
    return 'timed out';
  }
  if (/ECONNREFUSED/.test(message)) {
    return 'connection refused';
  }
  return message.split('\n')[0].slice(0, 200);
}

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

/**
 * Runs `attempt` until it succeeds, a failure is not transient, or the deadline passes; one log
 * line per failed attempt ("waiting for PostgreSQL at 127.0.0.1:5432: connection refused;
 * retrying in 2 s"). Returns the last error when it gives up, null on success.
 */
async function waitFor(
  what: string,
  where: string,
  deadline: number,
  wait: BootWait,
  attempt: (timeoutMs: number) => Promise<void>,
): Promise<{ err: unknown; transient: boolean } | null> {
  for (;;) {
    const left = deadline - Date.now();
    try {
      await attempt(Math.min(ATTEMPT_TIMEOUT_MS, Math.max(1000, left)));
      return null;
    } catch (err) {
      if (!transient(err)) {
        return { err, transient: false };
      }
      const now = Date.now();
      if (now >= deadline) {
        return { err, transient: true };
      }
      const pause = Math.min(wait.retryMs, deadline - now);
      wait.log(`waiting for ${what} at ${where}: ${why(err)}; retrying in ${seconds(pause)}`);
      await new Promise((r) => setTimeout(r, pause));
    }
  }
}

/**
 * Checks Postgres and Redis before Nest boots (docs/operations.md "Boot"), creating the database
 * if the server is up but the database does not exist yet. A dependency that is not there yet
 * (refused, unreachable, starting up) is waited for, up to `waitMs` for both together
 * (BOOT_DEPENDENCY_WAIT_MS), with one line per attempt on stderr; meanwhile nothing listens, so
 * the readiness probe fails. Past the bound, or on a failure waiting would not fix (a wrong
 * password), it throws one clear line (what to start) and main exits non-zero.
 */
export async function preflight(config: AppConfig, options: Partial<BootWait> = {}): Promise<void> {
  const wait: BootWait = {
    waitMs: options.waitMs ?? config.bootDependencyWaitMs,
    retryMs: options.retryMs ?? BOOT_RETRY_MS,
    log: options.log ?? ((line) => process.stderr.write(`${line}\n`)),
  };
  const deadline = Date.now() + wait.waitMs;
  const after = (r: { transient: boolean }) =>
    r.transient ? ` after waiting ${seconds(wait.waitMs)}` : '';

  const target = new URL(config.databaseUrl);
  const dbName = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(config.databaseUrl);
  admin.pathname = '/postgres';
  const pg = await waitFor(
    'PostgreSQL',
    hostPort(config.databaseUrl, 5432),
    deadline,
    wait,
    async (timeoutMs) => {
      const client = new Client({
        connectionString: admin.toString(),
        connectionTimeoutMillis: timeoutMs,
      });
      client.on('error', () => undefined);
      try {
        await client.connect();
        const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [dbName]);
        if (exists.rowCount === 0) {
          await client
            .query(`CREATE DATABASE "${dbName.replace(/"/g, '""')}"`)
            .catch((err: { code?: string }) => {
              // 42P04 duplicate_database: another instance booting at once created it.
              if (err.code !== '42P04') {
                throw err;
              }
            });
        }
      } finally {
        await client.end().catch(() => undefined);
      }
    },
  );
  if (pg) {
    fail(
      `Cannot reach PostgreSQL at ${safeUrl(config.databaseUrl)}${after(pg)} (${why(pg.err)}). ` +
        'Start it (e.g. `pg_ctlcluster 15 main start`) or run `docker compose up -d postgres redis`, or set DATABASE_URL.',
    );
  }

  const redisFailed = await waitFor(
    'Redis',
    hostPort(config.redisUrl, 6379),
    deadline,
    wait,
    async (timeoutMs) => {
      const redis = new Redis(config.redisUrl, {
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
        connectTimeout: timeoutMs,
      });
      let cause: unknown = null;
      redis.on('error', (err) => {
        cause ??= err;
      });
      try {
        await redis.connect();
        await redis.ping();
      } catch (err) {
        // ioredis rejects with "Connection is closed."; the socket's own error says why.
        throw cause ?? err;
      } finally {
        redis.disconnect();
      }
    },
  );
  if (redisFailed) {
    fail(
      `Cannot reach Redis at ${safeUrl(config.redisUrl)}${after(redisFailed)} (${why(redisFailed.err)}). ` +
        'Start it (e.g. `redis-server --daemonize yes`) or run `docker compose up -d postgres redis`, or set REDIS_URL.',
    );
  }
}
