import { IdempotencyAnswerOnce1764000001400 } from '../../src/database/migrations/1764000001400-IdempotencyAnswerOnce';
import { startApp, TestApp } from '../support/app';
import { inScratchSchema } from '../support/scratch-schema';

/**
 * Migration 1764000001400: a key's answer is kept once, as the text a replay sends. Run here on a
 * scratch copy of the table inside a transaction that is rolled back, so the shared test database
 * is never changed.
 */
describe('migration IdempotencyAnswerOnce', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('gives a record written before response_raw its text, drops the jsonb copy, and down restores it', async () => {
    await inScratchSchema(t, async (qr) => {
      await qr.query(
        `CREATE TABLE idempotency_records (key text PRIMARY KEY, response_body jsonb, response_raw text)`,
      );
      await qr.query(
        `INSERT INTO idempotency_records (key, response_body, response_raw) VALUES
         ('legacy', '{"id": "cs_1", "total": 92500}', NULL),
         ('current', '{"b": 1, "a": 2}', '{"b":1,"a":2}'),
         ('bodiless', NULL, NULL)`,
      );
      const migration = new IdempotencyAnswerOnce1764000001400();

      await migration.up(qr);
      const after = (await qr.query(
        `SELECT key, response_raw FROM idempotency_records ORDER BY key`,
      )) as { key: string; response_raw: string | null }[];
      expect(after).toEqual([
        { key: 'bodiless', response_raw: null },
        // The exact text first sent is kept as it was, key order and all.
        { key: 'current', response_raw: '{"b":1,"a":2}' },
        // What a legacy replay sent: the jsonb value's text.
        { key: 'legacy', response_raw: '{"id": "cs_1", "total": 92500}' },
      ]);
      const columns = (await qr.query(
        `SELECT column_name FROM information_schema.columns
        WHERE table_schema = 'migration_scratch' AND table_name = 'idempotency_records'
        ORDER BY column_name`,
      )) as { column_name: string }[];
      expect(columns.map((c) => c.column_name)).toEqual(['key', 'response_raw']);

      await migration.down(qr);
      const restored = (await qr.query(
        `SELECT key, response_body FROM idempotency_records ORDER BY key`,
      )) as { key: string; response_body: unknown }[];
      expect(restored).toEqual([
        { key: 'bodiless', response_body: null },
        { key: 'current', response_body: { a: 2, b: 1 } },
        { key: 'legacy', response_body: { id: 'cs_1', total: 92_500 } },
      ]);
    });
  });

  it('the live table keeps the answer once: its text, and no jsonb copy', async () => {
    const columns = await t.db.query<{ column_name: string }[]>(
      `SELECT column_name FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = 'idempotency_records'
          AND column_name LIKE 'response%'`,
    );
    expect(columns.map((c) => c.column_name)).toEqual(['response_raw']);
  });
});
