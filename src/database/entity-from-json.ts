import type { EntityManager, EntityTarget, ObjectLiteral, ValueTransformer } from 'typeorm';

/**
 * An entity from a row as Postgres's row_to_json gives it (database column names, timestamps as
 * strings, bigints as numbers), through the entity's own metadata and transformers: for a
 * hand-written statement that reads a row of one table alongside others in one round trip.
 */
export function entityFromJson<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  json: Record<string, unknown>,
): T {
  const meta = manager.connection.getMetadata(target);
  const entity = meta.create() as T;
  for (const column of meta.columns) {
    let value = json[column.databaseName];
    if (value === undefined) {
      continue;
    }
    if (value !== null && column.type === 'timestamptz') {
      value = new Date(value as string);
    }
    const transformers: ValueTransformer[] = column.transformer
      ? Array.isArray(column.transformer)
        ? [...column.transformer].reverse()
        : [column.transformer]
      : [];
    for (const t of transformers) {
      value = t.from(value);
    }
    column.setEntityValue(entity, value);
  }
  return entity;
}
