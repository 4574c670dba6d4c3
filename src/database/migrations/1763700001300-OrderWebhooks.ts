import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * ACP order webhooks (docs/webhooks.md "Order webhooks", src/orders): an agent platform registers a receiver
 * with its merchant protocol key. It is a webhook endpoint of another kind, so it shares the
 * outbox, the dispatcher's fan-out, the retry schedule and the delivery/attempt log.
 * - webhook_endpoints.kind: 'seller' (Standard Webhooks, the seller's API) or 'acp_order'
 *   (Merchant-Signature, registered under /acp). An acp_order endpoint always names the merchant
 *   key that registered it and that key's seller agent.
 * - outbox_events.protocol_key_id: for order events, the merchant key the checkout session was
 *   created with; the dispatcher sends an order event only to receivers of that key.
 */
export class OrderWebhooks1763700001300 implements MigrationInterface {
  name = 'OrderWebhooks1763700001300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_endpoints
        ADD COLUMN kind text NOT NULL DEFAULT 'seller'
          CONSTRAINT webhook_endpoints_kind_chk CHECK (kind IN ('seller', 'acp_order')),
        ADD COLUMN protocol_key_id text REFERENCES protocol_keys(id),
        ADD CONSTRAINT webhook_endpoints_acp_order_key_chk
          CHECK ((kind = 'acp_order') = (protocol_key_id IS NOT NULL)),
        ADD CONSTRAINT webhook_endpoints_acp_order_agent_chk
          CHECK (kind <> 'acp_order' OR agent_id IS NOT NULL);
      CREATE INDEX webhook_endpoints_protocol_key_id_idx ON webhook_endpoints (protocol_key_id, created_at DESC, id DESC)
        WHERE protocol_key_id IS NOT NULL;

      ALTER TABLE outbox_events ADD COLUMN protocol_key_id text REFERENCES protocol_keys(id);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE outbox_events DROP COLUMN protocol_key_id;
      DROP INDEX webhook_endpoints_protocol_key_id_idx;
      ALTER TABLE webhook_endpoints
        DROP CONSTRAINT webhook_endpoints_acp_order_agent_chk,
        DROP CONSTRAINT webhook_endpoints_acp_order_key_chk,
        DROP COLUMN protocol_key_id,
        DROP COLUMN kind;
    `);
  }
}
