import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Approvals gain a note for the person: why an approval was withdrawn (the mandate or token was
 * revoked, the mandate expired, the checkout was canceled) or why an approved payment could not
 * go ahead. Waiting payments are found by mandate and by token when either ends.
 */
export class ApprovalNote1763700000950 implements MigrationInterface {
  name = 'ApprovalNote1763700000950';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE approvals ADD COLUMN note text CHECK (note IS NULL OR length(note) <= 500)`,
    );
    await q.query(
      `CREATE INDEX payment_intents_waiting_mandate_idx ON payment_intents (mandate_id) WHERE status = 'requires_approval'`,
    );
    await q.query(
      `CREATE INDEX payment_intents_waiting_token_idx ON payment_intents (token_id) WHERE status = 'requires_approval'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX payment_intents_waiting_token_idx`);
    await q.query(`DROP INDEX payment_intents_waiting_mandate_idx`);
    await q.query(`ALTER TABLE approvals DROP COLUMN note`);
  }
}
