import { Column, Entity, PrimaryColumn } from 'typeorm';

import { paise } from '../../database/bigint.transformer';
import type { PaymentSourceKind } from '../../rails/payment-rail';

export type IntentStatus = 'requires_approval' | 'processing' | 'settled' | 'declined' | 'failed';
export type IntentSourceKind = PaymentSourceKind;

/** A payment between a buyer agent and a seller agent; every payment path ends here. */
@Entity('payment_intents')
export class PaymentIntent {
  @PrimaryColumn('text') id: string;
  @Column('text') buyerWorkspaceId: string;
  @Column('text') buyerAgentId: string;
  @Column('text') sellerWorkspaceId: string;
  @Column('text') sellerAgentId: string;
  @Column('bigint', { transformer: paise }) amountPaise: number;
  @Column('bigint', { transformer: paise }) amountRefundedPaise: number;
  @Column('text') currency: string;
  @Column('text') sourceKind: IntentSourceKind;
  @Column('text') sourceId: string;
  @Column('text', { nullable: true }) tokenId: string | null;
  @Column('text', { nullable: true }) mandateId: string | null;
  @Column('text') status: IntentStatus;
  @Column('text', { nullable: true }) declineCode: string | null;
  @Column('text', { nullable: true }) declineReason: string | null;
  @Column('text') description: string;
  /** Source facts for the receipt (line items, session, quote), kept for settlement after approval. */
  @Column('jsonb') receiptContext: object;
  @Column('text') rail: string;
  @Column('text', { nullable: true }) railReference: string | null;
  @Column('text', { nullable: true }) receiptId: string | null;
  @Column('timestamptz') createdAt: Date;
  @Column('timestamptz') updatedAt: Date;
  @Column('timestamptz', { nullable: true }) settledAt: Date | null;
}
