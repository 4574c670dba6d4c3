import { Column, Entity, PrimaryColumn } from 'typeorm';

import { paise } from '../../database/bigint.transformer';

/** One movement on the (sandbox) rail: the debit of a payment or the credit of a refund. */
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
  @Column('timestamptz') createdAt: Date;
}
