import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A delegated token is written by delegate_payment and updated once, when a complete spends it
 * (status `usable` → `used`, `used_at`). Two of the table's indexes held `status`, so that update
 * could never be a HOT update: Postgres wrote a new entry into all four indexes for every purchase.
 * With `status` out of every index, and 20 % of each page left free for the updated row
 * (fillfactor 80), the spend stays on its page and touches no index.
 *
 * What the indexes served still has one: a workspace's tokens newest first (`listLive`, which
 * filters status itself) and a mandate's tokens (revoking or locking its usable ones reads the
 * mandate's tokens and filters status; a rare step). Tests: test/e2e/token-hot-update.e2e-spec.ts.
 */
export class TokenUpdatesStayOnPage1764000001600 implements MigrationInterface {
  name = 'TokenUpdatesStayOnPage1764000001600';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX delegated_tokens_workspace_id_idx;
      CREATE INDEX delegated_tokens_workspace_id_idx ON delegated_tokens (workspace_id, created_at DESC, id DESC);
      DROP INDEX delegated_tokens_mandate_id_idx;
      CREATE INDEX delegated_tokens_mandate_id_idx ON delegated_tokens (mandate_id);
      ALTER TABLE delegated_tokens SET (fillfactor = 80);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE delegated_tokens RESET (fillfactor);
      DROP INDEX delegated_tokens_mandate_id_idx;
      CREATE INDEX delegated_tokens_mandate_id_idx ON delegated_tokens (mandate_id, status);
      DROP INDEX delegated_tokens_workspace_id_idx;
      CREATE INDEX delegated_tokens_workspace_id_idx ON delegated_tokens (workspace_id, status);
    `);
  }
}
