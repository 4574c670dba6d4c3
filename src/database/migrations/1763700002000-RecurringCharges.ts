import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Recurring payments, UPI AutoPay (docs/recurring.md "Recurring payments (UPI AutoPay)"):
 * - mandates of kind `recurring` (rail `upi_autopay`, a billing_cycle), and only those, carry a
 *   billing cycle;
 * - recurring_charges: a seller's charge against such a mandate, announced by a pre-debit notice
 *   and debited through the pipeline (payment_intents.source_kind `recurring`). The database pins
 *   the two rules no code path may break: the debit is at least 24 hours after the notice, and a
 *   mandate has at most one live or settled charge per billing cycle (so at most one successful
 *   debit per cycle, whatever races);
 * - approvals of kind `recurring_charge`: the person's authorisation of one debit, asked during
 *   the notice when the amount needs it.
 */
export class RecurringCharges1763700002000 implements MigrationInterface {
  name = 'RecurringCharges1763700002000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE mandates
        DROP CONSTRAINT mandates_kind_check,
        DROP CONSTRAINT mandates_rail_check,
        ADD COLUMN billing_cycle text,
        ADD CONSTRAINT mandates_kind_check CHECK (kind IN ('standing', 'one_time', 'recurring')),
        ADD CONSTRAINT mandates_rail_check CHECK (rail IN ('upi_reserve_pay', 'upi_otm', 'upi_autopay')),
        ADD CONSTRAINT mandates_billing_cycle_check CHECK (billing_cycle IN
          ('daily', 'weekly', 'fortnightly', 'monthly', 'bimonthly', 'quarterly', 'half_yearly', 'yearly')),
        ADD CONSTRAINT mandates_recurring_chk CHECK (
          (kind = 'recurring') = (rail = 'upi_autopay')
          AND (kind = 'recurring') = (billing_cycle IS NOT NULL));

      ALTER TABLE payment_intents
        DROP CONSTRAINT payment_intents_source_kind_check,
        ADD CONSTRAINT payment_intents_source_kind_check
          CHECK (source_kind IN ('checkout', 'quote', 'hosted', 'recurring'));

      ALTER TABLE approvals
        DROP CONSTRAINT approvals_kind_check,
        ADD CONSTRAINT approvals_kind_check CHECK (kind IN ('payment', 'refund', 'recurring_charge'));

      CREATE TABLE recurring_charges (
        id text PRIMARY KEY,
        mandate_id text NOT NULL REFERENCES mandates(id),
        buyer_workspace_id text NOT NULL REFERENCES workspaces(id),
        buyer_agent_id text NOT NULL REFERENCES agents(id),
        seller_workspace_id text NOT NULL REFERENCES workspaces(id),
        seller_agent_id text NOT NULL REFERENCES agents(id),
        amount_paise bigint NOT NULL CHECK (amount_paise > 0),
        description text NOT NULL,
        status text NOT NULL CHECK (status IN ('awaiting_authorisation', 'scheduled', 'processing',
          'settled', 'failed', 'declined', 'cancelled', 'expired')),
        notice_at timestamptz NOT NULL,
        debit_at timestamptz NOT NULL,
        cycle_index integer NOT NULL CHECK (cycle_index >= 0),
        cycle_start timestamptz NOT NULL,
        cycle_end timestamptz NOT NULL,
        authorisation text NOT NULL CHECK (authorisation IN ('none', 'approval', 'upi_afa')),
        approval_id text REFERENCES approvals(id),
        authorised_by text,
        authorised_at timestamptz,
        intent_id text REFERENCES payment_intents(id),
        failure_code text,
        failure_reason text,
        cancelled_by text,
        cancelled_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT recurring_charges_notice_chk CHECK (debit_at >= notice_at + interval '24 hours'),
        CONSTRAINT recurring_charges_cycle_chk CHECK (cycle_start <= debit_at AND debit_at < cycle_end)
      );
      CREATE UNIQUE INDEX recurring_charges_cycle_live_key ON recurring_charges (mandate_id, cycle_index)
        WHERE status IN ('awaiting_authorisation', 'scheduled', 'processing', 'settled');
      CREATE INDEX recurring_charges_due_idx ON recurring_charges (debit_at) WHERE status = 'scheduled';
      CREATE INDEX recurring_charges_mandate_idx ON recurring_charges (mandate_id, created_at DESC, id DESC);
      CREATE INDEX recurring_charges_buyer_ws_idx ON recurring_charges (buyer_workspace_id, created_at DESC);
      CREATE INDEX recurring_charges_seller_idx ON recurring_charges (seller_agent_id, created_at DESC);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE recurring_charges;
      DELETE FROM approvals WHERE kind = 'recurring_charge';
      ALTER TABLE approvals
        DROP CONSTRAINT approvals_kind_check,
        ADD CONSTRAINT approvals_kind_check CHECK (kind IN ('payment', 'refund'));
      ALTER TABLE payment_intents
        DROP CONSTRAINT payment_intents_source_kind_check,
        ADD CONSTRAINT payment_intents_source_kind_check
          CHECK (source_kind IN ('checkout', 'quote', 'hosted'));
      ALTER TABLE mandates
        DROP CONSTRAINT mandates_recurring_chk,
        DROP CONSTRAINT mandates_billing_cycle_check,
        DROP CONSTRAINT mandates_rail_check,
        DROP CONSTRAINT mandates_kind_check,
        DROP COLUMN billing_cycle,
        ADD CONSTRAINT mandates_kind_check CHECK (kind IN ('standing', 'one_time')),
        ADD CONSTRAINT mandates_rail_check CHECK (rail IN ('upi_reserve_pay', 'upi_otm'));
    `);
  }
}
