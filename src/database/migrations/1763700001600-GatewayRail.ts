import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The payment pipeline in two transactions and the gateway rail (docs/gateway.md "Going live on the
 * gateway", docs/architecture.md "Payment pipeline"):
 * - A payment's intent is committed `processing` before the rail is called (that state already
 *   existed but was never seen committed); the reconciler finds such intents by this index.
 * - Quotes get `processing` (a payment of the quote is in flight, by its agent or on the hosted
 *   page), refunds get `processing` (approved, the rail credit is in flight or pending at the
 *   gateway), rail transfers record the gateway's order, payment and refund ids.
 * - idempotency_records.pending_until: a request whose answer is finished after commit holds its
 *   key as in flight until then (src/common/idempotency/idempotency.interceptor.ts).
 * - hosted_checkouts.gateway_order_id: the gateway order a hosted checkout pays (the payment
 *   signature is checked against it, never against the browser's order id).
 * - gateway_events: every inbound gateway webhook, recorded in the transaction of its effect,
 *   once per event id (a repeat is ignored); events for unknown orders are kept `unmatched`.
 * - gateway_orders: every order the service opened at the gateway and what it pays (an intent's
 *   recurring debit, receipt = the intent id; a hosted checkout, receipt = the checkout id; a
 *   mandate's token registration), so an inbound event finds its subject by order id.
 * - gateway_mandate_tokens: the gateway customer and recurring token a mandate is debited with.
 */
export class GatewayRail1763700001600 implements MigrationInterface {
  name = 'GatewayRail1763700001600';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE INDEX payment_intents_processing_idx ON payment_intents (updated_at) WHERE status = 'processing';

      ALTER TABLE quotes DROP CONSTRAINT quotes_status_check;
      ALTER TABLE quotes ADD CONSTRAINT quotes_status_check
        CHECK (status IN ('open', 'processing', 'pending_approval', 'paid', 'canceled'));
      ALTER TABLE quotes ADD CONSTRAINT quotes_processing_intent_chk
        CHECK (status <> 'processing' OR intent_id IS NOT NULL);

      ALTER TABLE refunds DROP CONSTRAINT refunds_status_check;
      ALTER TABLE refunds ADD CONSTRAINT refunds_status_check
        CHECK (status IN ('pending_approval', 'processing', 'succeeded', 'denied', 'expired', 'failed'));

      ALTER TABLE rail_transfers
        ADD COLUMN gateway_order_id text,
        ADD COLUMN gateway_payment_id text,
        ADD COLUMN gateway_refund_id text;
      CREATE UNIQUE INDEX rail_transfers_gateway_payment_id_key ON rail_transfers (gateway_payment_id)
        WHERE gateway_payment_id IS NOT NULL AND direction = 'debit' AND status = 'succeeded';

      ALTER TABLE idempotency_records ADD COLUMN pending_until timestamptz;

      ALTER TABLE hosted_checkouts ADD COLUMN gateway_order_id text;
      CREATE UNIQUE INDEX hosted_checkouts_gateway_order_id_key ON hosted_checkouts (gateway_order_id)
        WHERE gateway_order_id IS NOT NULL;

      CREATE TABLE gateway_events (
        id text PRIMARY KEY,
        type text NOT NULL,
        payload jsonb NOT NULL,
        order_id text,
        payment_id text,
        refund_id text,
        outcome text NOT NULL
          CONSTRAINT gateway_events_outcome_chk CHECK (outcome IN ('applied', 'no_change', 'unmatched', 'ignored')),
        subject_id text,
        received_at timestamptz NOT NULL DEFAULT now(),
        reconciled_at timestamptz
      );
      CREATE INDEX gateway_events_unmatched_idx ON gateway_events (received_at) WHERE outcome = 'unmatched' AND reconciled_at IS NULL;
      CREATE INDEX gateway_events_order_id_idx ON gateway_events (order_id) WHERE order_id IS NOT NULL;

      CREATE TABLE gateway_orders (
        id text PRIMARY KEY,
        kind text NOT NULL CONSTRAINT gateway_orders_kind_chk CHECK (kind IN ('intent', 'hosted', 'registration')),
        subject_id text NOT NULL,
        amount_paise bigint NOT NULL CONSTRAINT gateway_orders_amount_paise_chk CHECK (amount_paise >= 0),
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX gateway_orders_subject_key ON gateway_orders (kind, subject_id);

      CREATE TABLE gateway_mandate_tokens (
        mandate_id text PRIMARY KEY REFERENCES mandates(id),
        customer_id text NOT NULL,
        token_id text,
        registration_order_id text,
        status text NOT NULL
          CONSTRAINT gateway_mandate_tokens_status_chk CHECK (status IN ('initiated', 'confirmed', 'rejected', 'cancelled')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE gateway_mandate_tokens;
      DROP TABLE gateway_orders;
      DROP TABLE gateway_events;
      DROP INDEX hosted_checkouts_gateway_order_id_key;
      ALTER TABLE hosted_checkouts DROP COLUMN gateway_order_id;
      ALTER TABLE idempotency_records DROP COLUMN pending_until;
      DROP INDEX rail_transfers_gateway_payment_id_key;
      ALTER TABLE rail_transfers
        DROP COLUMN gateway_refund_id,
        DROP COLUMN gateway_payment_id,
        DROP COLUMN gateway_order_id;
      ALTER TABLE refunds DROP CONSTRAINT refunds_status_check;
      ALTER TABLE refunds ADD CONSTRAINT refunds_status_check
        CHECK (status IN ('pending_approval', 'succeeded', 'denied', 'expired', 'failed'));
      ALTER TABLE quotes DROP CONSTRAINT quotes_processing_intent_chk;
      ALTER TABLE quotes DROP CONSTRAINT quotes_status_check;
      ALTER TABLE quotes ADD CONSTRAINT quotes_status_check
        CHECK (status IN ('open', 'pending_approval', 'paid', 'canceled'));
      DROP INDEX payment_intents_processing_idx;
    `);
  }
}
