import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A key's answer was stored twice: as the exact text a replay sends (`response_raw`, migration
 * 1763700001200) and again as jsonb of that same text (`response_body`), which nothing needs since
 * every answer with a body has its text. The twin made each answer of a purchase (2–3 KB for a
 * checkout session) cost twice its bytes in rows and WAL (bench/README.md "One round trip less, WAL
 * per flow"). The text is now the only copy; a record written before 1763700001200 (text missing,
 * jsonb present) gets the jsonb's text first, as its replay sent.
 */
export class IdempotencyAnswerOnce1764000001400 implements MigrationInterface {
  name = 'IdempotencyAnswerOnce1764000001400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `UPDATE idempotency_records SET response_raw = response_body::text
        WHERE response_raw IS NULL AND response_body IS NOT NULL`,
    );
    await q.query(`ALTER TABLE idempotency_records DROP COLUMN response_body`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE idempotency_records ADD COLUMN response_body jsonb`);
    await q.query(
      `UPDATE idempotency_records SET response_body = response_raw::jsonb WHERE response_raw IS NOT NULL`,
    );
  }
}
