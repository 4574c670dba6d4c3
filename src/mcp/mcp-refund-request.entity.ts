import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Which refund an `issue_refund` call with an idempotency_key created (migration 1763700000700). */
@Entity('mcp_refund_requests')
export class McpRefundRequest {
  @PrimaryColumn('text') agentId: string;
  @PrimaryColumn('text') idempotencyKey: string;
  /** sha256 of the canonical tool arguments, so a reused key with other arguments is refused. */
  @Column('text') requestHash: string;
  /** Null only inside the claiming transaction. */
  @Column('text', { nullable: true }) refundId: string | null;
  @Column('timestamptz') createdAt: Date;
}
