import { Column, Entity, PrimaryColumn } from 'typeorm';

import { paise } from '../database/bigint.transformer';

/** See refund.state.ts for the moves between these. */
export type RefundStatus =
  'pending_approval' | 'processing' | 'succeeded' | 'denied' | 'expired' | 'failed';

/** A full or partial refund of a settled intent, asked by its seller, executed only after a person approves. */
@Entity('refunds')
export class Refund {
  @PrimaryColumn('text') id: string;
  @Column('text') intentId: string;
  @Column('text') sellerWorkspaceId: string;
  @Column('text') sellerAgentId: string;
  @Column('text') buyerAgentId: string;
  @Column('bigint', { transformer: paise }) amountPaise: number;
  @Column('text') currency: string;
  @Column('text', { nullable: true }) reason: string | null;
  @Column('text') status: RefundStatus;
  @Column('text', { nullable: true }) approvalId: string | null;
  @Column('text', { nullable: true }) decidedBy: string | null;
  @Column('text', { nullable: true }) railReference: string | null;
  @Column('text', { nullable: true }) failureCode: string | null;
  @Column('text', { nullable: true }) failureReason: string | null;
  @Column('timestamptz') createdAt: Date;
  @Column('timestamptz') updatedAt: Date;
  @Column('timestamptz', { nullable: true }) decidedAt: Date | null;
  @Column('timestamptz', { nullable: true }) succeededAt: Date | null;
}
