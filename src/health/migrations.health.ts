import { Injectable } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { DataSource } from 'typeorm';

import { CheckTimeout, withinTimeout } from './check-timeout';

/** Migration names by TypeORM's rule (the class's `name` property, else the class name). */
function migrationName(m: { name?: string; constructor: { name: string } }): string {
  return m.name ?? m.constructor.name;
}

/**
 * "Migrations current" for readiness: no migration this build carries is missing from the
 * migrations table (the comparison TypeORM's showMigrations makes, without its side effect of
 * creating the table). Up with `applied` (how many this build carries); down with
 * `pending: <names>`, or the fixed words `unreachable` / `timeout` when the table cannot be read.
 */
@Injectable()
export class MigrationsHealthIndicator {
  constructor(
    private readonly health: HealthIndicatorService,
    private readonly dataSource: DataSource,
  ) {}

  async pendingCheck<const Key extends string>(
    key: Key,
    { timeout }: { timeout: number },
  ): Promise<HealthIndicatorResult<Key>> {
    const check = this.health.check(key);
    let pending: string[];
    try {
      pending = await withinTimeout(this.pendingMigrations(), timeout);
    } catch (err) {
      return check.down({ message: err instanceof CheckTimeout ? 'timeout' : 'unreachable' });
    }
    if (pending.length > 0) {
      return check.down({ message: `pending: ${pending.join(', ')}` });
    }
    return check.up({ applied: this.dataSource.migrations.length });
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
