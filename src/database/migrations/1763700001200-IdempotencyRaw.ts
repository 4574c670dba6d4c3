import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The exact response text of an idempotent request (src/common/idempotency). jsonb keeps the
 * value but not the key order or spacing, so a replay rebuilt from response_body would differ in
 * bytes from the first answer; response_raw is what a replay sends. Nullable: rows written
 * before this migration (and bodiless responses) have none and replay from response_body.
 */
export class IdempotencyRaw1763700001200 implements MigrationInterface {
  name = 'IdempotencyRaw1763700001200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE idempotency_records ADD COLUMN response_raw text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE idempotency_records DROP COLUMN response_raw`);
  }
}
