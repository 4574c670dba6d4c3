import { DataSourceOptions } from 'typeorm';

import { SnakeNamingStrategy } from './snake-naming.strategy';

/** Longest a request waits for a pooled connection (queue wait or connect) before failing as 503. */
export const POOL_WAIT_MS = 5_000;

/** One definition for the app, the migration CLI and tests. Entities are registered by glob. */
export function dataSourceOptions(url: string, poolMax = 20): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: [`${__dirname}/../**/*.entity.{ts,js}`],
    migrations: [`${__dirname}/migrations/*.{ts,js}`],
    migrationsTableName: 'schema_migrations',
    namingStrategy: new SnakeNamingStrategy(),
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: {
      max: poolMax,
      // Requests hold one connection for their transaction; under bursts they queue for the pool
      // rather than fail. connectionTimeoutMillis bounds both that queue wait and opening a new
      // connection, so while Postgres is unreachable (or the pool is stuck) a request gives up
      // within this many ms and answers 503 + Retry-After (outage.ts) instead of hanging.
      // Refused or rejected connections (server down, restarting, not accepting) fail at once.
      connectionTimeoutMillis: POOL_WAIT_MS,
      // Notice a silently dropped server (no FIN/RST) on idle connections.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      // pg's pipeline mode: a statement is written at once even while the connection still
      // waits on an earlier one, so statements a transaction sends back to back share the wait
      // (docs/architecture.md "Round trips"). One at a time, it behaves as before.
      pipeline: true,
    },
    parseInt8: false,
  };
}
