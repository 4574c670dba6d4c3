import { DataSourceOptions } from 'typeorm';
import { SnakeNamingStrategy } from './snake-naming.strategy';

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
    // Requests hold one connection for their transaction; under bursts they queue for the pool rather than fail.
    extra: { max: poolMax, connectionTimeoutMillis: 15_000 },
    parseInt8: false,
  };
}
