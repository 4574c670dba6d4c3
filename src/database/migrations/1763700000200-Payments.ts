import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Listings, ACP checkout sessions, UPI mandates, delegated tokens and the payment pipeline
 * (intents, approvals, sandbox rail debits, receipts, outbox).
 */
export class Payments1763700000200 implements MigrationInterface {
  name = 'Payments1763700000200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE seller_listings (
        agent_id text PRIMARY KEY REFERENCES agents(id),
        listed boolean NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE offers (
        id text PRIMARY KEY,
        seller_agent_id text NOT NULL REFERENCES agents(id),
        sku text NOT NULL,
        name text NOT NULL,
        unit_paise bigint NOT NULL CHECK (unit_paise > 0),
        category text NOT NULL,
        active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT offers_seller_agent_id_sku_key UNIQUE (seller_agent_id, sku)
      );
      CREATE INDEX offers_category_idx ON offers (category) WHERE active;

      CREATE TABLE mandates (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id),
        buyer_agent_id text NOT NULL REFERENCES agents(id),
        kind text NOT NULL CHECK (kind IN ('standing', 'one_time')),
        rail text NOT NULL CHECK (rail IN ('upi_reserve_pay', 'upi_otm')),
        per_payment_cap_paise bigint NOT NULL CHECK (per_payment_cap_paise > 0),
        payee_agent_ids text[],
        valid_from timestamptz NOT NULL,
        valid_until timestamptz NOT NULL,
        status text NOT NULL CHECK (status IN ('pending_authorisation', 'active', 'revoked', 'expired')),
        description text,
        authorised_by text REFERENCES persons(id),
        authorised_at timestamptz,
        revoked_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        CHECK (valid_until > valid_from)
      );
      CREATE INDEX mandates_buyer_agent_id_idx ON mandates (buyer_agent_id, created_at DESC);
      CREATE INDEX mandates_workspace_id_idx ON mandates (workspace_id, created_at DESC);

      CREATE TABLE checkout_sessions (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id),
        seller_agent_id text NOT NULL REFERENCES agents(id),
        protocol_key_id text NOT NULL REFERENCES protocol_keys(id),
        status text NOT NULL,
        currency text NOT NULL,
        line_items jsonb NOT NULL,
        buyer jsonb,
        messages jsonb NOT NULL DEFAULT '[]'::jsonb,
        intent_id text,
        order_id text,
        intent_trace jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        completed_at timestamptz,
        canceled_at timestamptz
      );
      CREATE INDEX checkout_sessions_seller_agent_id_idx ON checkout_sessions (seller_agent_id, created_at DESC);
      CREATE UNIQUE INDEX checkout_sessions_order_id_key ON checkout_sessions (order_id) WHERE order_id IS NOT NULL;

      CREATE TABLE delegated_tokens (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id),
        buyer_agent_id text NOT NULL REFERENCES agents(id),
        protocol_key_id text NOT NULL REFERENCES protocol_keys(id),
        mandate_id text NOT NULL REFERENCES mandates(id),
        checkout_session_id text NOT NULL REFERENCES checkout_sessions(id),
        merchant_agent_id text NOT NULL REFERENCES agents(id),
        max_amount_paise bigint NOT NULL CHECK (max_amount_paise > 0),
        currency text NOT NULL,
        expires_at timestamptz NOT NULL,
        status text NOT NULL CHECK (status IN ('usable', 'used', 'revoked')),
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        used_at timestamptz,
        revoked_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX delegated_tokens_buyer_agent_id_idx ON delegated_tokens (buyer_agent_id, created_at DESC);
      CREATE INDEX delegated_tokens_workspace_id_idx ON delegated_tokens (workspace_id, status);

      CREATE TABLE payment_intents (
        id text PRIMARY KEY,
        buyer_workspace_id text NOT NULL REFERENCES workspaces(id),
        buyer_agent_id text NOT NULL REFERENCES agents(id),
        seller_workspace_id text NOT NULL REFERENCES workspaces(id),
        seller_agent_id text NOT NULL REFERENCES agents(id),
        amount_paise bigint NOT NULL CHECK (amount_paise > 0),
        amount_refunded_paise bigint NOT NULL DEFAULT 0 CHECK (amount_refunded_paise >= 0 AND amount_refunded_paise <= amount_paise),
        currency text NOT NULL DEFAULT 'INR',
        source_kind text NOT NULL CHECK (source_kind IN ('checkout', 'quote', 'hosted')),
        source_id text NOT NULL,
        token_id text REFERENCES delegated_tokens(id),
        mandate_id text REFERENCES mandates(id),
        status text NOT NULL CHECK (status IN ('requires_approval', 'processing', 'settled', 'declined', 'failed')),
        decline_code text,
        decline_reason text,
        description text NOT NULL,
        receipt_context jsonb NOT NULL DEFAULT '{}'::jsonb,
        rail text NOT NULL DEFAULT 'sandbox',
        rail_reference text,
        receipt_id text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        settled_at timestamptz
      );
      -- A token pays once, enforced by the database as well as by the row lock.
      CREATE UNIQUE INDEX payment_intents_token_id_key ON payment_intents (token_id) WHERE token_id IS NOT NULL;
      -- One live payment per source (session, quote, hosted checkout).
      CREATE UNIQUE INDEX payment_intents_source_live_key ON payment_intents (source_kind, source_id)
        WHERE status IN ('requires_approval', 'processing', 'settled');
      CREATE INDEX payment_intents_buyer_idx ON payment_intents (buyer_agent_id, created_at DESC);
      CREATE INDEX payment_intents_seller_idx ON payment_intents (seller_agent_id, created_at DESC);

      CREATE TABLE approvals (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id),
        kind text NOT NULL CHECK (kind IN ('payment', 'refund')),
        subject_id text NOT NULL,
        amount_paise bigint NOT NULL,
        summary text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'expired', 'withdrawn')),
        decided_by text REFERENCES persons(id),
        decided_at timestamptz,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX approvals_kind_subject_id_pending_key ON approvals (kind, subject_id) WHERE status = 'pending';
      CREATE INDEX approvals_workspace_id_idx ON approvals (workspace_id, status, created_at DESC);

      CREATE TABLE rail_transfers (
        id text PRIMARY KEY,
        intent_id text NOT NULL REFERENCES payment_intents(id),
        direction text NOT NULL CHECK (direction IN ('debit', 'credit')),
        refund_id text,
        amount_paise bigint NOT NULL CHECK (amount_paise > 0),
        status text NOT NULL CHECK (status IN ('succeeded', 'failed')),
        failure_code text,
        reference text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      -- One successful debit per intent; one transfer per refund.
      CREATE UNIQUE INDEX rail_transfers_debit_key ON rail_transfers (intent_id) WHERE direction = 'debit' AND status = 'succeeded';
      CREATE UNIQUE INDEX rail_transfers_refund_id_key ON rail_transfers (refund_id) WHERE refund_id IS NOT NULL;

      CREATE TABLE outbox_events (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id),
        agent_id text NOT NULL REFERENCES agents(id),
        type text NOT NULL,
        subject_id text NOT NULL,
        payload jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        dispatched_at timestamptz,
        CONSTRAINT outbox_events_type_subject_id_key UNIQUE (type, subject_id)
      );
      CREATE INDEX outbox_events_undispatched_idx ON outbox_events (created_at) WHERE dispatched_at IS NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE outbox_events; DROP TABLE rail_transfers; DROP TABLE approvals; DROP TABLE payment_intents;
      DROP TABLE delegated_tokens; DROP TABLE checkout_sessions; DROP TABLE mandates; DROP TABLE offers;
      DROP TABLE seller_listings;
    `);
  }
}
