import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Operators (docs/operations.md "Operating it"): the people who run the service. A workspace (its `kind`
 * column comes from 1763700001400-Forex) may now also be `operator`; a person is a `member` (the default) or an
 * `operator`. Operator tools (the queue dashboard at /app/ops/queues) need both: an operator
 * person in an operator workspace (checked by src/ops/operator-access.ts). Existing rows keep
 * the defaults, so nobody becomes an operator by this migration.
 */
export class Operators1763700001700 implements MigrationInterface {
  name = 'Operators1763700001700';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE workspaces DROP CONSTRAINT workspaces_kind_chk;
      ALTER TABLE workspaces ADD CONSTRAINT workspaces_kind_chk
        CHECK (kind IN ('standard', 'forex_partner', 'operator'));
      ALTER TABLE persons
        ADD COLUMN role text NOT NULL DEFAULT 'member'
          CONSTRAINT persons_role_chk CHECK (role IN ('member', 'operator'));
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE persons DROP COLUMN role;
      ALTER TABLE workspaces DROP CONSTRAINT workspaces_kind_chk;
      ALTER TABLE workspaces ADD CONSTRAINT workspaces_kind_chk
        CHECK (kind IN ('standard', 'forex_partner'));
    `);
  }
}
