import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Captures we cannot settle are refunded (docs/gateway.md "Going live on the gateway", docs/architecture.md
 * "Every capture settles or is refunded"): a payment the gateway captured that the service cannot
 * settle on exactly one intent (the buyer's rules refused it, the quote was paid another way,
 * canceled or expired, the amount is not the order's, the intent had already failed, a second
 * capture on a paid order) gets one row here, in the transaction that decided so.
 * - payment_id is unique: however often a webhook, the page or the sweep meets the capture, it is
 *   held once, and the refund is asked once per `asks` (Idempotency-Key crf-<id>-<asks>).
 * - status: due (the refund is to be asked) → requested (the gateway accepted it, pending) →
 *   refunded (processed; final). A refund the gateway fails goes back to due with asks + 1.
 * - id (crf_…) is also the signed receipt chain of the refund and the gateway refund's receipt.
 * - hosted_checkouts.captures_checked_at: the ended-checkout pass asks the gateway once, after a
 *   checkout with a gateway order ends unpaid, whether a payment was captured on it anyway.
 */
export class CaptureRefunds1764000000000 implements MigrationInterface {
  name = 'CaptureRefunds1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE gateway_capture_refunds (
        id text PRIMARY KEY,
        payment_id text NOT NULL,
        order_id text NOT NULL,
        amount_paise bigint NOT NULL CONSTRAINT gateway_capture_refunds_amount_chk CHECK (amount_paise > 0),
        checkout_id text,
        quote_id text,
        intent_id text,
        buyer_workspace_id text,
        seller_workspace_id text,
        seller_agent_id text,
        reason_code text NOT NULL,
        reason text NOT NULL,
        status text NOT NULL DEFAULT 'due'
          CONSTRAINT gateway_capture_refunds_status_chk CHECK (status IN ('due', 'requested', 'refunded')),
        asks integer NOT NULL DEFAULT 0,
        gateway_refund_id text,
        last_error text,
        next_attempt_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        requested_at timestamptz,
        refunded_at timestamptz,
        CONSTRAINT gateway_capture_refunds_payment_id_key UNIQUE (payment_id),
        CONSTRAINT gateway_capture_refunds_refunded_chk
          CHECK (status <> 'refunded' OR (refunded_at IS NOT NULL AND gateway_refund_id IS NOT NULL))
      );
      CREATE INDEX gateway_capture_refunds_open_idx ON gateway_capture_refunds (next_attempt_at)
        WHERE status <> 'refunded';
      CREATE INDEX gateway_capture_refunds_checkout_idx ON gateway_capture_refunds (checkout_id)
        WHERE checkout_id IS NOT NULL;
      CREATE INDEX gateway_capture_refunds_intent_idx ON gateway_capture_refunds (intent_id)
        WHERE intent_id IS NOT NULL;
      ALTER TABLE hosted_checkouts ADD COLUMN captures_checked_at timestamptz;
      CREATE INDEX hosted_checkouts_capture_check_idx ON hosted_checkouts (expires_at)
        WHERE gateway_order_id IS NOT NULL AND captures_checked_at IS NULL AND status <> 'paid';
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX hosted_checkouts_capture_check_idx;
      ALTER TABLE hosted_checkouts DROP COLUMN captures_checked_at;
      DROP TABLE gateway_capture_refunds;
    `);
  }
}
