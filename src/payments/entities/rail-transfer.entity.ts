import { Column, Entity, PrimaryColumn } from 'typeorm';

import { paise } from '../../database/bigint.transformer';

/**
 * One movement on the rail: the debit of a payment or the credit of a refund, written in the
 * transaction that records its result (never before the rail answered).
 */
@Entity('rail_transfers')
export class RailTransfer {
  @PrimaryColumn('text') id: string;
  @Column('text') intentId: string;
  @Column('text') direction: 'debit' | 'credit';
  @Column('text', { nullable: true }) refundId: string | null;
  @Column('bigint', { transformer: paise }) amountPaise: number;
  @Column('text') status: 'succeeded' | 'failed';
  @Column('text', { nullable: true }) failureCode: string | null;
  @Column('text') reference: string;
  /** The gateway's order, payment and refund behind it (gateway rail only). */
  @Column('text', { nullable: true }) gatewayOrderId: string | null;
  @Column('text', { nullable: true }) gatewayPaymentId: string | null;
  @Column('text', { nullable: true }) gatewayRefundId: string | null;
  @Column('timestamptz') createdAt: Date;
}
