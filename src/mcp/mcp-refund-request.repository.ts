import { Injectable } from '@nestjs/common';

import { Tx } from '../database/tx';
import { McpRefundRequest } from './mcp-refund-request.entity';

/** The (agent, idempotency_key) → refund map behind `issue_refund`; joins the caller's transaction. */
@Injectable()
export class McpRefundRequestRepository {
  constructor(private readonly tx: Tx) {}

  /**
   * Claims the key. True when this call inserted it; false when it already exists. A concurrent
   * claim of the same key blocks on the unique index until the first transaction ends, so a
   * false here always sees a committed row with its refund_id set.
   */
  async claim(agentId: string, key: string, requestHash: string, now: Date): Promise<boolean> {
    const rows: unknown[] = await this.tx.manager.query(
      `INSERT INTO mcp_refund_requests (agent_id, idempotency_key, request_hash, refund_id, created_at)
       VALUES ($1, $2, $3, NULL, $4)
       ON CONFLICT (agent_id, idempotency_key) DO NOTHING RETURNING agent_id`,
      [agentId, key, requestHash, now],
    );
    return rows.length === 1;
  }

  find(agentId: string, key: string): Promise<McpRefundRequest | null> {
    return this.tx.manager.findOneBy(McpRefundRequest, { agentId, idempotencyKey: key });
  }

  async setRefund(agentId: string, key: string, refundId: string): Promise<void> {
    await this.tx.manager.update(McpRefundRequest, { agentId, idempotencyKey: key }, { refundId });
  }
}
