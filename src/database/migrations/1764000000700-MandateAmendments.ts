import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Mandate amendments and variable recurring mandates (RBI E-Mandate Framework 2026, DOMAIN.md
 * 12a; docs/mandates.md "Mandates, approvals and the consent centre" and docs/recurring.md "Recurring payments (UPI AutoPay)"):
 * - `mandate_amendments`: a buyer agent's request to change a mandate's cap, validity or payee
 *   list; the old and the new terms, the person's decision. At most one pending per mandate
 *   (a partial unique index). The mandate's own columns change only when the person authorises.
 * - `mandates.proposed_cap_paise`: on a recurring mandate, the maximum per debit the agent
 *   proposed; `per_payment_cap_paise` is what the person authorised (never above the proposal
 *   at authorisation).
 * - `billing_cycle` may be `as_presented` (no cycle: one debit per cycle does not apply), and a
 *   charge on such a mandate has no cycle index (NULL, which the cycle's unique index never
 *   matches).
 */
export class MandateAmendments1764000000700 implements MigrationInterface {
  name = 'MandateAmendments1764000000700';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE mandates
        ADD COLUMN proposed_cap_paise bigint CHECK (proposed_cap_paise > 0),
        DROP CONSTRAINT mandates_billing_cycle_check,
        ADD CONSTRAINT mandates_billing_cycle_check CHECK (billing_cycle IN
          ('daily', 'weekly', 'fortnightly', 'monthly', 'bimonthly', 'quarterly', 'half_yearly',
           'yearly', 'as_presented'));
      UPDATE mandates SET proposed_cap_paise = per_payment_cap_paise WHERE kind = 'recurring';

      ALTER TABLE recurring_charges ALTER COLUMN cycle_index DROP NOT NULL;

      CREATE TABLE mandate_amendments (
        id text PRIMARY KEY,
        mandate_id text NOT NULL REFERENCES mandates (id),
        workspace_id text NOT NULL,
        buyer_agent_id text NOT NULL,
        status text NOT NULL CONSTRAINT mandate_amendments_status_chk
          CHECK (status IN ('pending', 'authorised', 'declined', 'expired', 'withdrawn')),
        old_terms jsonb NOT NULL,
        new_terms jsonb NOT NULL,
        changed text[] NOT NULL CHECK (cardinality(changed) > 0),
        reason text,
        chain_id text NOT NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL CHECK (expires_at > created_at),
        decided_by text,
        decided_at timestamptz,
        decision_note text,
        CONSTRAINT mandate_amendments_decided_chk
          CHECK ((status = 'pending') = (decided_at IS NULL))
      );
      CREATE UNIQUE INDEX mandate_amendments_one_pending ON mandate_amendments (mandate_id)
        WHERE status = 'pending';
      CREATE INDEX mandate_amendments_by_mandate ON mandate_amendments (mandate_id, created_at DESC, id DESC);
      CREATE INDEX mandate_amendments_pending_expiry ON mandate_amendments (expires_at)
        WHERE status = 'pending';
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE mandate_amendments;
      DELETE FROM recurring_charges WHERE cycle_index IS NULL;
      ALTER TABLE recurring_charges ALTER COLUMN cycle_index SET NOT NULL;
      UPDATE mandates SET billing_cycle = 'monthly' WHERE billing_cycle = 'as_presented';
      ALTER TABLE mandates
        DROP CONSTRAINT mandates_billing_cycle_check,
        ADD CONSTRAINT mandates_billing_cycle_check CHECK (billing_cycle IN
          ('daily', 'weekly', 'fortnightly', 'monthly', 'bimonthly', 'quarterly', 'half_yearly', 'yearly')),
        DROP COLUMN proposed_cap_paise;
    `);
  }
}
