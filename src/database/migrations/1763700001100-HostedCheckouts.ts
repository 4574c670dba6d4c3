import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Hosted checkouts (src/public-pay): one attempt of the buyer's person to pay a quote on the
 * hosted payment page. States and moves: src/public-pay/hosted-checkout.state.ts.
 * - At most one live (created or processing) checkout per quote: a partial unique index, so a
 *   second start can never create a twin even if two requests race past the quote lock.
 * - A paid checkout points at its settled intent; an intent pays at most one checkout.
 * - A payment with no mandate is a hosted-page payment: the person on the page authorised it
 *   (PayAuthority 'person_on_page'). Every other path draws on a mandate, so the database says so.
 *   (payment_intents.source_kind already allows 'hosted' since 1763700000200-Payments.)
 */
export class HostedCheckouts1763700001100 implements MigrationInterface {
  name = 'HostedCheckouts1763700001100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE hosted_checkouts (
        id text PRIMARY KEY,
        quote_id text NOT NULL REFERENCES quotes(id),
        status text NOT NULL
          CONSTRAINT hosted_checkouts_status_chk CHECK (status IN ('created', 'processing', 'paid', 'failed', 'expired')),
        amount_paise bigint NOT NULL CONSTRAINT hosted_checkouts_amount_paise_chk CHECK (amount_paise > 0),
        currency text NOT NULL DEFAULT 'INR' CONSTRAINT hosted_checkouts_currency_chk CHECK (currency = 'INR'),
        rail text NOT NULL,
        intent_id text REFERENCES payment_intents(id),
        attempts integer NOT NULL DEFAULT 0 CONSTRAINT hosted_checkouts_attempts_chk CHECK (attempts >= 0),
        failure_code text,
        failure_reason text,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        completed_at timestamptz,
        CONSTRAINT hosted_checkouts_expires_at_chk CHECK (expires_at > created_at),
        CONSTRAINT hosted_checkouts_paid_intent_chk CHECK (status <> 'paid' OR (intent_id IS NOT NULL AND completed_at IS NOT NULL))
      );
      CREATE UNIQUE INDEX hosted_checkouts_quote_id_live_key ON hosted_checkouts (quote_id)
        WHERE status IN ('created', 'processing');
      CREATE INDEX hosted_checkouts_quote_id_idx ON hosted_checkouts (quote_id, created_at DESC);
      CREATE UNIQUE INDEX hosted_checkouts_intent_id_key ON hosted_checkouts (intent_id) WHERE intent_id IS NOT NULL;

      ALTER TABLE payment_intents ADD CONSTRAINT payment_intents_mandate_or_hosted_chk
        CHECK (mandate_id IS NOT NULL OR source_kind = 'hosted');
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE payment_intents DROP CONSTRAINT payment_intents_mandate_or_hosted_chk;
      DROP TABLE hosted_checkouts;
    `);
  }
}
