import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Settlements and reconciliation (docs/gateway.md "Settlements and reconciliation"):
 * - gateway_settlements: each settlement (payout) the gateway reported, with its UTR and totals.
 * - settlement_lines: one row per gateway payment or refund, as the settlement report gave it
 *   (amount, fee, tax, UTR, settlement) and matched to our intent (and refund) by the gateway ids
 *   the pipeline recorded on rail_transfers. `mismatch` says what does not agree:
 *   `amount` (the report's amount is not ours), `unknown` (a line for no payment or refund of
 *   ours; no intent), `missing` (a gateway payment or refund of ours that no report carries
 *   after the grace period; no settlement yet). A later report line for a missing row fills it in.
 *   `seller_agent_id` is the intent's seller: GET /v1/pay/settlements shows a seller its own lines.
 */
export class Settlements1763700001800 implements MigrationInterface {
  name = 'Settlements1763700001800';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE gateway_settlements (
        id text PRIMARY KEY,
        amount_paise bigint NOT NULL,
        fees_paise bigint NOT NULL CONSTRAINT gateway_settlements_fees_chk CHECK (fees_paise >= 0),
        tax_paise bigint NOT NULL CONSTRAINT gateway_settlements_tax_chk CHECK (tax_paise >= 0),
        utr text NOT NULL,
        settled_at timestamptz NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE settlement_lines (
        id text PRIMARY KEY,
        kind text NOT NULL CONSTRAINT settlement_lines_kind_chk CHECK (kind IN ('payment', 'refund')),
        gateway_entity_id text NOT NULL,
        gateway_settlement_id text,
        utr text,
        amount_paise bigint,
        fee_paise bigint NOT NULL DEFAULT 0 CONSTRAINT settlement_lines_fee_chk CHECK (fee_paise >= 0),
        tax_paise bigint NOT NULL DEFAULT 0 CONSTRAINT settlement_lines_tax_chk CHECK (tax_paise >= 0),
        debit_paise bigint NOT NULL DEFAULT 0,
        credit_paise bigint NOT NULL DEFAULT 0,
        gateway_order_id text,
        order_receipt text,
        settled_at timestamptz,
        intent_id text REFERENCES payment_intents(id),
        refund_id text,
        seller_agent_id text REFERENCES agents(id),
        expected_amount_paise bigint,
        mismatch text CONSTRAINT settlement_lines_mismatch_chk CHECK (mismatch IN ('amount', 'missing', 'unknown')),
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT settlement_lines_unknown_chk CHECK ((mismatch = 'unknown') = (intent_id IS NULL)),
        CONSTRAINT settlement_lines_missing_chk CHECK (mismatch IS DISTINCT FROM 'missing' OR gateway_settlement_id IS NULL),
        CONSTRAINT settlement_lines_reported_chk CHECK (mismatch = 'missing' OR (gateway_settlement_id IS NOT NULL AND amount_paise IS NOT NULL AND utr IS NOT NULL))
      );
      CREATE UNIQUE INDEX settlement_lines_entity_key ON settlement_lines (kind, gateway_entity_id);
      CREATE INDEX settlement_lines_seller_idx ON settlement_lines (seller_agent_id, created_at DESC, id DESC);
      CREATE INDEX settlement_lines_mismatch_idx ON settlement_lines (created_at DESC) WHERE mismatch IS NOT NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE settlement_lines;
      DROP TABLE gateway_settlements;
    `);
  }
}
