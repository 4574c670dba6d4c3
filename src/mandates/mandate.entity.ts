import { Column, Entity, PrimaryColumn } from 'typeorm';

import { paise } from '../database/bigint.transformer';

export type MandateStatus = 'pending_authorisation' | 'active' | 'revoked' | 'expired';
export type MandateRail = 'upi_reserve_pay' | 'upi_otm';
export type MandateKind = 'standing' | 'one_time';

/**
 * A UPI mandate a person authorised for a buyer agent: per-payment cap, payee list (null = any
 * seller), validity window, rail. `one_time` mandates are created by delegate_payment without a
 * mandate_id and are scoped exactly to that token's allowance.
 */
@Entity('mandates')
export class Mandate {
  @PrimaryColumn('text') id: string;
  @Column('text') workspaceId: string;
  @Column('text') buyerAgentId: string;
  @Column('text') kind: MandateKind;
  @Column('text') rail: MandateRail;
  @Column('bigint', { transformer: paise }) perPaymentCapPaise: number;
  @Column('text', { array: true, nullable: true }) payeeAgentIds: string[] | null;
  @Column('timestamptz') validFrom: Date;
  @Column('timestamptz') validUntil: Date;
  @Column('text') status: MandateStatus;
  @Column('text', { nullable: true }) description: string | null;
  @Column('text', { nullable: true }) authorisedBy: string | null;
  @Column('timestamptz', { nullable: true }) authorisedAt: Date | null;
  @Column('timestamptz', { nullable: true }) revokedAt: Date | null;
  @Column('timestamptz') createdAt: Date;
}
