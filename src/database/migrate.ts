import 'reflect-metadata';

import { DataSource } from 'typeorm';

import { dataSourceOptions } from './data-source-options';

/** Applies pending migrations; used on start (RUN_MIGRATIONS) and by the test global setup. */
export async function migrate(url: string): Promise<string[]> {
  const ds = new DataSource(dataSourceOptions(url, 2));
  await ds.initialize();
  try {
    const applied = await ds.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await ds.destroy();
  }
}
