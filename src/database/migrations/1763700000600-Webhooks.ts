import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Outbound webhooks (Standard Webhooks): endpoints with a sealed signing secret, one delivery per
 * (event, endpoint), one attempt row per HTTP try.
 */
export class Webhooks1763700000600 implements MigrationInterface {
  name = 'Webhooks1763700000600';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_endpoints (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id),
        agent_id text REFERENCES agents(id),
        url text NOT NULL,
        description text,
        event_types text[] NOT NULL CHECK (cardinality(event_types) > 0),
        -- AES-256-GCM under WEBHOOK_SECRET_KEY, bound to the endpoint id; never the plaintext.
        secret_ciphertext text NOT NULL,
        -- The secret before the last rotation, still signed with until it expires.
        previous_secret_ciphertext text,
        previous_secret_expires_at timestamptz,
        status text NOT NULL CHECK (status IN ('enabled', 'disabled')),
        disabled_reason text,
        disabled_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CHECK ((status = 'disabled') = (disabled_reason IS NOT NULL))
      );
      CREATE INDEX webhook_endpoints_workspace_id_idx ON webhook_endpoints (workspace_id, created_at DESC, id DESC);
      CREATE INDEX webhook_endpoints_enabled_idx ON webhook_endpoints (workspace_id) WHERE status = 'enabled';

      CREATE TABLE webhook_deliveries (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id),
        endpoint_id text NOT NULL REFERENCES webhook_endpoints(id),
        event_id text NOT NULL REFERENCES outbox_events(id),
        event_type text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
        attempt_count integer NOT NULL DEFAULT 0,
        scheduled_attempts integer NOT NULL DEFAULT 0,
        manual_requests integer NOT NULL DEFAULT 0,
        manual_attempts integer NOT NULL DEFAULT 0,
        last_status_code integer,
        last_error text,
        next_attempt_at timestamptz,
        delivered_at timestamptz,
        failed_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT webhook_deliveries_event_id_endpoint_id_key UNIQUE (event_id, endpoint_id)
      );
      CREATE INDEX webhook_deliveries_endpoint_id_idx ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);
      CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
      CREATE INDEX webhook_deliveries_redelivery_idx ON webhook_deliveries (updated_at) WHERE manual_attempts < manual_requests;

      CREATE TABLE webhook_attempts (
        id text PRIMARY KEY,
        delivery_id text NOT NULL REFERENCES webhook_deliveries(id),
        attempt integer NOT NULL CHECK (attempt > 0),
        trigger text NOT NULL CHECK (trigger IN ('scheduled', 'manual')),
        status_code integer,
        duration_ms integer NOT NULL,
        error text,
        response_body text,
        created_at timestamptz NOT NULL,
        CONSTRAINT webhook_attempts_delivery_id_attempt_key UNIQUE (delivery_id, attempt)
      );

      -- GET /v1/events: a workspace's events, newest first.
      CREATE INDEX outbox_events_workspace_id_idx ON outbox_events (workspace_id, created_at DESC, id DESC);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX outbox_events_workspace_id_idx;
      DROP TABLE webhook_attempts; DROP TABLE webhook_deliveries; DROP TABLE webhook_endpoints;
    `);
  }
}
