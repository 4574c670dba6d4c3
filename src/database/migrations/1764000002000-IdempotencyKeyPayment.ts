import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The payment a request recorded under its Idempotency-Key, kept on the key's record with the
 * commit of the request's first transaction (docs/security.md "Idempotency", "A retry after a 503
 * or a crash"): when the process or Postgres dies after that commit, the retry with the same key
 * finds its own payment and answers its state instead of running again into `token_used` or
 * `quote_already_paid`. No foreign key: a record outlives nothing it names, and the retention job
 * removes records on their own schedule.
 */
export class IdempotencyKeyPayment1764000002000 implements MigrationInterface {
  name = 'IdempotencyKeyPayment1764000002000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE idempotency_records ADD COLUMN intent_id text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE idempotency_records DROP COLUMN intent_id`);
  }
}
