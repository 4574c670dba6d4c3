import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A party's lifecycle made explicit (docs/architecture.md "Party lifecycle",
 * src/accounts/party-lifecycle.ts): `workspaces.status` (active, suspended, closed) and
 * `agents.status` (active, suspended, disabled). Backfilled from the dates that implied them:
 * a workspace with `erased_at` is closed, an agent with `disabled_at` is disabled. The dates stay
 * (they say when). The payment pipeline's gate reads the two columns.
 */
export class PartyLifecycle1764000001700 implements MigrationInterface {
  name = 'PartyLifecycle1764000001700';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE workspaces ADD COLUMN status text NOT NULL DEFAULT 'active'
        CONSTRAINT workspaces_status_check CHECK (status IN ('active', 'suspended', 'closed'));
      UPDATE workspaces SET status = 'closed' WHERE erased_at IS NOT NULL;
      ALTER TABLE agents ADD COLUMN status text NOT NULL DEFAULT 'active'
        CONSTRAINT agents_status_check CHECK (status IN ('active', 'suspended', 'disabled'));
      UPDATE agents SET status = 'disabled' WHERE disabled_at IS NOT NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE agents DROP COLUMN status;
      ALTER TABLE workspaces DROP COLUMN status;
    `);
  }
}
