import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Inbound gateway events that do not parse (docs/gateway.md "Going live on the gateway"): a correctly
 * signed event whose body is not the event we expect is kept with outcome `unprocessable` and a
 * short reason, answered 2xx so the gateway stops retrying, and listed for operators with the
 * `unmatched` ones (/app/ops/gateway-events).
 * - outcome: `unprocessable` added; `refund_due` (capture-refunds.ts: a capture held for a full
 *   refund) is listed too, since the service already records it;
 * - reason: what failed to parse, naming fields by path, never a value from the body;
 * - payload may be null: a signed body that is not JSON, or holds what jsonb cannot (NUL, lone
 *   surrogates), is not stored;
 * - gateway_events_review_idx: the operators' list and the scrape-time gauge read only these rows.
 * The id column is text (no width): event ids of up to 128 characters fit as they are.
 */
export class GatewayEventsEdge1764000000100 implements MigrationInterface {
  name = 'GatewayEventsEdge1764000000100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE gateway_events DROP CONSTRAINT gateway_events_outcome_chk;
      ALTER TABLE gateway_events ADD CONSTRAINT gateway_events_outcome_chk
        CHECK (outcome IN ('applied', 'no_change', 'unmatched', 'ignored', 'refund_due', 'unprocessable'));
      ALTER TABLE gateway_events ADD COLUMN reason text;
      ALTER TABLE gateway_events ALTER COLUMN payload DROP NOT NULL;
      ALTER TABLE gateway_events ADD CONSTRAINT gateway_events_payload_chk
        CHECK (payload IS NOT NULL OR outcome = 'unprocessable');
      CREATE INDEX gateway_events_review_idx ON gateway_events (received_at)
        WHERE outcome IN ('unprocessable', 'unmatched');
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX gateway_events_review_idx;
      DELETE FROM gateway_events WHERE outcome = 'unprocessable';
      ALTER TABLE gateway_events DROP CONSTRAINT gateway_events_payload_chk;
      ALTER TABLE gateway_events ALTER COLUMN payload SET NOT NULL;
      ALTER TABLE gateway_events DROP COLUMN reason;
      ALTER TABLE gateway_events DROP CONSTRAINT gateway_events_outcome_chk;
      ALTER TABLE gateway_events ADD CONSTRAINT gateway_events_outcome_chk
        CHECK (outcome IN ('applied', 'no_change', 'unmatched', 'ignored', 'refund_due'));
    `);
  }
}
