import { Column, Entity, PrimaryColumn } from 'typeorm';

import { paise } from '../database/bigint.transformer';

export type SettlementLineKind = 'payment' | 'refund';
export type SettlementMismatch = 'amount' | 'missing' | 'unknown';

/**
 * One gateway payment or refund as the settlement report gave it, matched to our intent
 * (migration 1763700001800-Settlements). `mismatch` null: the report agrees with our books.
 */
@Entity('settlement_lines')
export class SettlementLine {
  @PrimaryColumn('text') id: string;
  @Column('text') kind: SettlementLineKind;
  @Column('text') gatewayEntityId: string;
  @Column('text', { nullable: true }) gatewaySettlementId: string | null;
  @Column('text', { nullable: true }) utr: string | null;
  @Column('bigint', { nullable: true, transformer: paise }) amountPaise: number | null;
  @Column('bigint', { transformer: paise }) feePaise: number;
  @Column('bigint', { transformer: paise }) taxPaise: number;
  @Column('bigint', { transformer: paise }) debitPaise: number;
  @Column('bigint', { transformer: paise }) creditPaise: number;
  @Column('text', { nullable: true }) gatewayOrderId: string | null;
  @Column('text', { nullable: true }) orderReceipt: string | null;
  @Column('timestamptz', { nullable: true }) settledAt: Date | null;
  @Column('text', { nullable: true }) intentId: string | null;
  @Column('text', { nullable: true }) refundId: string | null;
  @Column('text', { nullable: true }) sellerAgentId: string | null;
  @Column('bigint', { nullable: true, transformer: paise }) expectedAmountPaise: number | null;
  @Column('text', { nullable: true }) mismatch: SettlementMismatch | null;
  @Column('timestamptz') createdAt: Date;
  @Column('timestamptz') updatedAt: Date;
}
