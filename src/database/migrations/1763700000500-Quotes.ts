import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Seller surface: quotes (from a published offer or free-form by the seller) and refunds of
 * settled intents. A quote's `expired` status is derived from expires_at at read time, never
 * stored, so no sweeper is needed; refunds always wait for a person (approvals kind 'refund').
 */
export class Quotes1763700000500 implements MigrationInterface {
  name = 'Quotes1763700000500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE quotes (
        id text PRIMARY KEY,
        seller_workspace_id text NOT NULL REFERENCES workspaces(id),
        seller_agent_id text NOT NULL REFERENCES agents(id),
        seller_name text NOT NULL,
        buyer_workspace_id text NOT NULL REFERENCES workspaces(id),
        buyer_agent_id text NOT NULL REFERENCES agents(id),
        origin text NOT NULL CHECK (origin IN ('offer', 'seller')),
        offer_id text REFERENCES offers(id),
        category text NOT NULL,
        line_items jsonb NOT NULL,
        amount_paise bigint NOT NULL CHECK (amount_paise > 0),
        currency text NOT NULL DEFAULT 'INR' CHECK (currency = 'INR'),
        status text NOT NULL CHECK (status IN ('open', 'pending_approval', 'paid', 'canceled')),
        intent_id text REFERENCES payment_intents(id),
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        paid_at timestamptz,
        canceled_at timestamptz,
        CHECK (expires_at > created_at),
        CHECK ((origin = 'offer') = (offer_id IS NOT NULL)),
        -- A quote waiting for a person or paid always points at its live intent.
        CHECK (status NOT IN ('pending_approval', 'paid') OR intent_id IS NOT NULL)
      );
      CREATE INDEX quotes_seller_agent_id_idx ON quotes (seller_agent_id, created_at DESC);
      CREATE INDEX quotes_buyer_agent_id_idx ON quotes (buyer_agent_id, created_at DESC);
      CREATE UNIQUE INDEX quotes_intent_id_key ON quotes (intent_id) WHERE intent_id IS NOT NULL;

      CREATE TABLE refunds (
        id text PRIMARY KEY,
        intent_id text NOT NULL REFERENCES payment_intents(id),
        seller_workspace_id text NOT NULL REFERENCES workspaces(id),
        seller_agent_id text NOT NULL REFERENCES agents(id),
        buyer_agent_id text NOT NULL REFERENCES agents(id),
        amount_paise bigint NOT NULL CHECK (amount_paise > 0),
        currency text NOT NULL DEFAULT 'INR',
        reason text,
        status text NOT NULL CHECK (status IN ('pending_approval', 'succeeded', 'denied', 'expired', 'failed')),
        approval_id text REFERENCES approvals(id),
        decided_by text REFERENCES persons(id),
        rail_reference text,
        failure_code text,
        failure_reason text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        decided_at timestamptz,
        succeeded_at timestamptz
      );
      CREATE INDEX refunds_intent_id_idx ON refunds (intent_id, created_at DESC);
      CREATE UNIQUE INDEX refunds_approval_id_key ON refunds (approval_id) WHERE approval_id IS NOT NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE refunds; DROP TABLE quotes;`);
  }
}
