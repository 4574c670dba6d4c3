import { Injectable, Logger, ServiceUnavailableException } from '@nestjs/common';
import {
  HealthCheckResult,
  HealthCheckService,
  HealthIndicatorFunction,
  HealthIndicatorResult,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import { DataSource } from 'typeorm';

import { CHECK_TIMEOUT_MS } from './check-timeout';
import { MigrationsHealthIndicator } from './migrations.health';
import { RedisHealthIndicator } from './redis.health';

/**
 * Probes that arrive together share one run of the checks, and its result for this long: the
 * probes are public and not rate-limited, so their load on Postgres and Redis stays bounded.
 */
export const CHECK_CACHE_MS = 1000;

/** Adds `responseTime` (ms) to the indicator's result, as every check of /health/ready reports it. */
function timed<const Key extends string>(
  key: Key,
  run: () => Promise<HealthIndicatorResult<Key>>,
): HealthIndicatorFunction {
  return async () => {
    const start = performance.now();
    const result = await run();
    return { [key]: { ...result[key], responseTime: Math.round(performance.now() - start) } };
  };
}

/**
 * Readiness (GET /health/ready) on @nestjs/terminus: `HealthCheckService` runs three indicators,
 * `postgres` (`TypeOrmHealthIndicator`'s `SELECT 1`), `redis` (`RedisHealthIndicator`, PING) and
 * `migrations` (`MigrationsHealthIndicator`, none pending), each within `CHECK_TIMEOUT_MS`. As in
 * terminus, `check()` resolves to the result when all are up and rejects with a
 * `ServiceUnavailableException` carrying it otherwise (ProbesController answers that 503 with
 * Retry-After). Terminus's own logger is off (HealthModule): a lost readiness is logged here, once.
 */
@Injectable()
export class Readiness {
  private readonly logger = new Logger(Readiness.name);
  private last: { at: number; result: Promise<HealthCheckResult> } | null = null;
  private ready = true;

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly typeOrm: TypeOrmHealthIndicator,
    private readonly redis: RedisHealthIndicator,
    private readonly migrations: MigrationsHealthIndicator,
    private readonly dataSource: DataSource,
  ) {}

  check(): Promise<HealthCheckResult> {
    const now = Date.now();
    if (!this.last || now - this.last.at >= CHECK_CACHE_MS) {
      const result = this.run();
      this.last = { at: now, result };
      // The cache counts from when the run finished, so a slow run is not repeated at once.
      const settled = (): void => {
        if (this.last?.result === result) {
          this.last.at = Date.now();
        }
      };
      result.then(settled, settled);
    }
    return this.last.result;
  }

  private async run(): Promise<HealthCheckResult> {
    try {
      const result = await this.health.check([
        timed('postgres', () => this.postgres()),
        timed('redis', () => this.redis.pingCheck('redis', { timeout: CHECK_TIMEOUT_MS })),
        timed('migrations', () =>
          this.migrations.pendingCheck('migrations', { timeout: CHECK_TIMEOUT_MS }),
        ),
      ]);
      this.note(result);
      return result;
    } catch (err) {
      if (err instanceof ServiceUnavailableException) {
        this.note(err.getResponse() as HealthCheckResult);
      }
      throw err;
    }
  }

  /**
   * TypeOrmHealthIndicator reports a timeout as `timeout of <n>ms exceeded` and any other failure
   * without a message; the probe answers the fixed words `timeout` and `unreachable` instead.
   */
  private async postgres(): Promise<HealthIndicatorResult<'postgres'>> {
    const result = await this.typeOrm.pingCheck('postgres', {
      connection: this.dataSource,
      timeout: CHECK_TIMEOUT_MS,
    });
    if (result.postgres.status === 'up') {
      return result;
    }
    const message: unknown = result.postgres.message;
    const timedOut = typeof message === 'string' && message.startsWith('timeout');
    return this.indicators
      .check('postgres')
      .down({ message: timedOut ? 'timeout' : 'unreachable' });
  }

  /** Logs the changes only: readiness lost (with the failed checks' fixed words) and regained. */
  private note(result: HealthCheckResult): void {
    const ready = result.status === 'ok';
    if (!ready && this.ready) {
      this.logger.warn({ status: result.status, error: result.error }, 'not ready');
    } else if (ready && !this.ready) {
      this.logger.log('ready again');
    }
    this.ready = ready;
  }
}
