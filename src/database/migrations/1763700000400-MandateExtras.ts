import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Revoking (or declining) a mandate revokes the usable tokens drawn on it, and delegate_payment
 * checks whether a one-time mandate has already paid: both look tokens up by mandate.
 */
export class MandateExtras1763700000400 implements MigrationInterface {
  name = 'MandateExtras1763700000400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX delegated_tokens_mandate_id_idx ON delegated_tokens (mandate_id, status)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX delegated_tokens_mandate_id_idx`);
  }
}
