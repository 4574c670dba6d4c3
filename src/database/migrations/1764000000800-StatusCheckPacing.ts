import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Status checks within NPCI limits (docs/recurring.md "Recurring payments (UPI AutoPay)", docs/rules.md
 * `autopay.status_check_max`, `autopay.status_check_min_spacing`): one row per AutoPay debit
 * (an intent of source kind `recurring`) whose outcome the rail left unknown. `checks` counts the
 * status checks made (the debit itself is not one), `last_asked_at` is the last call to the gateway
 * about it (the debit or a check), `next_ask_at` the earliest instant the next check may go out,
 * `left_at` when the checks ran out and the intent was left to the daily settlement reconciliation.
 * Owner: src/payments/rail-status-check.repository.ts.
 */
export class StatusCheckPacing1764000000800 implements MigrationInterface {
  name = 'StatusCheckPacing1764000000800';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE rail_status_checks (
        intent_id text PRIMARY KEY REFERENCES payment_intents (id) ON DELETE CASCADE,
        checks integer NOT NULL DEFAULT 0 CHECK (checks >= 0),
        last_asked_at timestamptz NOT NULL,
        next_ask_at timestamptz NOT NULL,
        left_at timestamptz,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX rail_status_checks_left_at_idx ON rail_status_checks (left_at)
        WHERE left_at IS NOT NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE rail_status_checks`);
  }
}
