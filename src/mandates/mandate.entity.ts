import { Column, Entity, PrimaryColumn } from 'typeorm';

import { paise } from '../database/bigint.transformer';
import type { MandateBillingCycle } from '../recurring/autopay-schedule';

export type MandateStatus = 'pending_authorisation' | 'active' | 'revoked' | 'expired';
export type MandateRail = 'upi_reserve_pay' | 'upi_otm' | 'upi_autopay';
export type MandateKind = 'standing' | 'one_time' | 'recurring';

/**
 * A UPI mandate a person authorised for a buyer agent: per-payment cap, payee list (null = any
 * seller), validity window, rail. `one_time` mandates are created by delegate_payment without a
 * mandate_id and are scoped exactly to that token's allowance. `recurring` mandates (UPI AutoPay,
 * rail `upi_autopay`) carry a billing cycle and are drawn on only by sellers' scheduled charges
 * (src/recurring, docs/recurring.md "Recurring payments (UPI AutoPay)").
 */
@Entity('mandates')
export class Mandate {
  @PrimaryColumn('text') id: string;
  @Column('text') workspaceId: string;
  @Column('text') buyerAgentId: string;
  @Column('text') kind: MandateKind;
  @Column('text') rail: MandateRail;
  /**
   * Recurring mandates only: how often a debit may be taken (one successful debit per cycle), or
   * `as_presented` (no cycle rule).
   */
  @Column('text', { nullable: true }) billingCycle: MandateBillingCycle | null;
  /** For a recurring mandate the maximum per debit the person authorised (or amended to). */
  @Column('bigint', { transformer: paise }) perPaymentCapPaise: number;
  /** Recurring mandates: the maximum per debit the agent proposed (the person may lower it). */
  @Column('bigint', { transformer: paise, nullable: true }) proposedCapPaise: number | null;
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
