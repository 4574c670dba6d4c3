import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import { DataSource } from 'typeorm';

import { QUEUES } from '../common/queues/queues';

/** Each check gives up after this long; a probe answers within it. */
export const CHECK_TIMEOUT_MS = 2000;
/**
 * Probes that arrive together share one run of the checks, and its result for this long: the
 * probes are public and not rate-limited, so their load on Postgres and Redis stays bounded.
 */
export const CHECK_CACHE_MS = 1000;

export type CheckName = 'postgres' | 'redis' | 'migrations';

export interface CheckResult {
  status: 'up' | 'down';
  /** `unreachable`, `timeout`, or the pending migrations; never a driver message (the probe is public). */
  message?: string;
  /** Migrations: how many this build carries (all applied). */
  applied?: number;
  responseTime: number;
}

/** The body of /health/ready, in the shape of @nestjs/terminus's health check result. */
export interface ReadinessResult {
  status: 'ok' | 'error';
  info: Partial<Record<CheckName, CheckResult>>;
  error: Partial<Record<CheckName, CheckResult>>;
  details: Record<CheckName, CheckResult>;
}

class CheckFailed extends Error {}

async function timed(fn: () => Promise<Partial<CheckResult> | void>): Promise<CheckResult> {
  const start = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CheckFailed('timeout')), CHECK_TIMEOUT_MS);
  });
  try {
    const extra = await Promise.race([fn(), timeout]);
    return { status: 'up', ...(extra ?? {}), responseTime: Math.round(performance.now() - start) };
  } catch (err) {
    return {
      status: 'down',
      message: err instanceof CheckFailed ? err.message : 'unreachable',
      responseTime: Math.round(performance.now() - start),
    };
  } finally {
    clearTimeout(timer);
  }
}

/** Migration names by TypeORM's rule (the class's `name` property, else the class name). */
function migrationName(m: { name?: string; constructor: { name: string } }): string {
  return m.name ?? m.constructor.name;
}

/**
 * Readiness (GET /health/ready): PostgreSQL answers, Redis answers, and no migration is pending
 * (the schema_migrations rows against the migrations this build carries, the comparison
 * TypeORM's showMigrations makes, without its side effect of creating the table). The answer has
 * @nestjs/terminus's shape ({status, info, error, details}); terminus itself is not used because
 * its current release is an ES module that the test runner cannot load (README "Why each
 * dependency"). A lost readiness is logged once, with its cause.
 */
@Injectable()
export class Readiness {
  private readonly logger = new Logger(Readiness.name);
  private last: { at: number; result: Promise<ReadinessResult> } | null = null;
  private ready = true;

  constructor(
    private readonly dataSource: DataSource,
    @InjectQueue(QUEUES.maintenance) private readonly queue: Queue,
  ) {}

  check(): Promise<ReadinessResult> {
    const now = Date.now();
    if (!this.last || now - this.last.at >= CHECK_CACHE_MS) {
      const result = this.run();
      this.last = { at: now, result };
      // The cache counts from when the run finished, so a slow run is not repeated at once.
      void result.then(() => {
        if (this.last?.result === result) {
          this.last.at = Date.now();
        }
      });
    }
    return this.last.result;
  }

  private async run(): Promise<ReadinessResult> {
    const [postgres, redis, migrations] = await Promise.all([
      timed(async () => {
        await this.dataSource.query('SELECT 1');
      }),
      timed(async () => {
        // A disconnected ioredis client would only queue the PING until Redis returns.
        if (this.queue.client.status !== 'ready') {
          throw new Error(this.queue.client.status);
        }
        await this.queue.client.ping();
      }),
      timed(async () => {
        const pending = await this.pendingMigrations();
        if (pending.length > 0) {
          throw new CheckFailed(`pending: ${pending.join(', ')}`);
        }
        return { applied: this.dataSource.migrations.length };
      }),
    ]);
    const details = { postgres, redis, migrations };
    const entries = Object.entries(details) as [CheckName, CheckResult][];
    const result: ReadinessResult = {
      status: entries.every(([, c]) => c.status === 'up') ? 'ok' : 'error',
      info: Object.fromEntries(entries.filter(([, c]) => c.status === 'up')),
      error: Object.fromEntries(entries.filter(([, c]) => c.status === 'down')),
      details,
    };
    if (result.status === 'error' && this.ready) {
      this.logger.warn({ error: result.error }, 'not ready');
    } else if (result.status === 'ok' && !this.ready) {
      this.logger.log('ready again');
    }
    this.ready = result.status === 'ok';
    return result;
  }

  /** Names of the migrations this build has that the database has not recorded, oldest first. */
  async pendingMigrations(): Promise<string[]> {
    const known = this.dataSource.migrations.map(migrationName);
    const table = this.dataSource.options.migrationsTableName ?? 'migrations';
    let applied: Set<string>;
    try {
      const rows = await this.dataSource.query<{ name: string }[]>(
        `SELECT name FROM "${table.replace(/"/g, '""')}"`,
      );
      applied = new Set(rows.map((r) => r.name));
    } catch (err) {
      if ((err as { code?: string }).code !== '42P01') {
        throw err;
      }
      applied = new Set(); // no migrations table yet: everything is pending
    }
    return known.filter((name) => !applied.has(name));
  }
}
