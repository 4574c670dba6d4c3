import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * MCP: there is no HTTP Idempotency-Key on a tool call, so `issue_refund` takes an
 * `idempotency_key` argument and records here which refund it created. The unique key is the
 * claim: a second call with the same key waits for the first to commit, then finds its refund.
 * refund_id is null only inside the claiming transaction (claim → create refund → set it).
 */
export class Mcp1763700000700 implements MigrationInterface {
  name = 'Mcp1763700000700';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE mcp_refund_requests (
        agent_id text NOT NULL REFERENCES agents(id),
        idempotency_key text NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 255),
        request_hash text NOT NULL,
        refund_id text REFERENCES refunds(id),
        created_at timestamptz NOT NULL,
        CONSTRAINT mcp_refund_requests_agent_id_idempotency_key_key UNIQUE (agent_id, idempotency_key)
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE mcp_refund_requests;`);
  }
}
