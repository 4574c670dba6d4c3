import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * UCP orders (docs/ucp.md "Orders"): order events go to the webhook URL the platform names in its
 * profile's dev.ucp.shopping.order config, through the same outbox, deliveries, attempts, retries
 * and 410 handling as every other webhook.
 * - webhook_endpoints.kind gains 'ucp_order': one endpoint per (merchant protocol key, platform
 *   webhook URL), made by us when a UCP checkout is created, signed with RFC 9421 (ES256).
 * - ucp_order_webhooks: which UCP checkout session sends its order events to which endpoint (and
 *   the platform profile that named it), written at checkout creation.
 * - ucp_signing_keys: our P-256 keys for UCP signatures (public JWK published in /.well-known/ucp
 *   signing_keys; private half sealed under SIGNING_KEY_ENCRYPTION_KEY, bound to its kid).
 * Owner: src/ucp/orders/ucp-order.repository.ts.
 */
export class UcpOrders1764000001100 implements MigrationInterface {
  name = 'UcpOrders1764000001100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_endpoints
        DROP CONSTRAINT webhook_endpoints_kind_chk,
        DROP CONSTRAINT webhook_endpoints_acp_order_key_chk,
        DROP CONSTRAINT webhook_endpoints_acp_order_agent_chk,
        ADD CONSTRAINT webhook_endpoints_kind_chk
          CHECK (kind IN ('seller', 'acp_order', 'ucp_order')),
        ADD CONSTRAINT webhook_endpoints_acp_order_key_chk
          CHECK ((kind IN ('acp_order', 'ucp_order')) = (protocol_key_id IS NOT NULL)),
        ADD CONSTRAINT webhook_endpoints_acp_order_agent_chk
          CHECK (kind NOT IN ('acp_order', 'ucp_order') OR agent_id IS NOT NULL);

      CREATE TABLE ucp_order_webhooks (
        checkout_session_id text PRIMARY KEY REFERENCES checkout_sessions (id) ON DELETE CASCADE,
        endpoint_id text NOT NULL REFERENCES webhook_endpoints (id),
        profile_url text NOT NULL,
        webhook_url text NOT NULL,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX ucp_order_webhooks_endpoint_id_idx ON ucp_order_webhooks (endpoint_id);

      CREATE TABLE ucp_signing_keys (
        kid text PRIMARY KEY,
        public_jwk jsonb NOT NULL,
        private_key_sealed text,
        created_at timestamptz NOT NULL,
        retired_at timestamptz
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE ucp_signing_keys;
      DROP TABLE ucp_order_webhooks;
      DELETE FROM webhook_endpoints WHERE kind = 'ucp_order';
      ALTER TABLE webhook_endpoints
        DROP CONSTRAINT webhook_endpoints_acp_order_agent_chk,
        DROP CONSTRAINT webhook_endpoints_acp_order_key_chk,
        DROP CONSTRAINT webhook_endpoints_kind_chk,
        ADD CONSTRAINT webhook_endpoints_kind_chk CHECK (kind IN ('seller', 'acp_order')),
        ADD CONSTRAINT webhook_endpoints_acp_order_key_chk
          CHECK ((kind = 'acp_order') = (protocol_key_id IS NOT NULL)),
        ADD CONSTRAINT webhook_endpoints_acp_order_agent_chk
          CHECK (kind <> 'acp_order' OR agent_id IS NOT NULL);
    `);
  }
}
