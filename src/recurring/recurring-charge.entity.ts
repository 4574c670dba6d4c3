import { Column, Entity, PrimaryColumn } from 'typeorm';

import { paise } from '../database/bigint.transformer';

/**
 * awaiting_authorisation → (the person approves) scheduled → processing → settled | failed;
 * scheduled | awaiting_authorisation → cancelled (buyer, person or seller) | declined (the
 * buyer's rules at debit time) | expired (never authorised before its cycle or mandate ended).
 */
export type ChargeStatus =
  | 'awaiting_authorisation'
  | 'scheduled'
  | 'processing'
  | 'settled'
  | 'failed'
  | 'declined'
  | 'cancelled'
  | 'expired';

/**
 * What the person must do for this debit before it is taken: `none` (at or below the approval
 * threshold, not the mandate's first debit), `approval` (above ₹2,000, the product's rule, or the
 * mandate's first debit, DOMAIN.md 12a), `upi_afa` (above ₹15,000: UPI's additional factor of
 * authentication, DOMAIN.md A.3, given as the same approval in the app), `with_registration` (a
 * first debit scheduled while the mandate awaited the person: authorising the mandate, on the
 * page that shows this debit, authorises it too).
 */
export type ChargeAuthorisation = 'none' | 'approval' | 'upi_afa' | 'with_registration';

/** Statuses in which a charge holds its billing cycle (the unique index on mandate + cycle). */
export const CYCLE_HOLDING: readonly ChargeStatus[] = [
  'awaiting_authorisation',
  'scheduled',
  'processing',
  'settled',
];

/** Statuses a buyer, person or seller may still cancel from. */
export const CANCELLABLE: readonly ChargeStatus[] = ['awaiting_authorisation', 'scheduled'];

/**
 * A seller's scheduled debit on a recurring (UPI AutoPay) mandate (docs/recurring.md "Recurring payments
 * (UPI AutoPay)"): announced by a pre-debit notice at `noticeAt`, debited through the payment
 * pipeline at `debitAt` (≥ 24 h later, outside the blocked windows), in billing cycle
 * `cycleIndex` of its mandate.
 */
@Entity('recurring_charges')
export class RecurringCharge {
  @PrimaryColumn('text') id: string;
  @Column('text') mandateId: string;
  @Column('text') buyerWorkspaceId: string;
  @Column('text') buyerAgentId: string;
  @Column('text') sellerWorkspaceId: string;
  @Column('text') sellerAgentId: string;
  @Column('bigint', { transformer: paise }) amountPaise: number;
  @Column('text') description: string;
  /** Why the seller debits, as it said when scheduling (the notice names it). */
  @Column('text') reason: string;
  /** The gateway's UPI mandate (token) reference when the notice went out; null on the sandbox. */
  @Column('text', { nullable: true }) upiMandateRef: string | null;
  /** Scheduled before any debit on its mandate settled: the person authenticates it. */
  @Column('boolean') firstDebit: boolean;
  /** When the post-debit alert went out (once per charge). */
  @Column('timestamptz', { nullable: true }) alertedAt: Date | null;
  /** The debit's receipt, named in the post-debit alert. */
  @Column('text', { nullable: true }) receiptId: string | null;
  @Column('text') status: ChargeStatus;
  @Column('timestamptz') noticeAt: Date;
  @Column('timestamptz') debitAt: Date;
  /** null on an `as_presented` mandate: no billing cycle (start/end are the mandate's validity). */
  @Column('integer', { nullable: true }) cycleIndex: number | null;
  @Column('timestamptz') cycleStart: Date;
  @Column('timestamptz') cycleEnd: Date;
  @Column('text') authorisation: ChargeAuthorisation;
  @Column('text', { nullable: true }) approvalId: string | null;
  @Column('text', { nullable: true }) authorisedBy: string | null;
  @Column('timestamptz', { nullable: true }) authorisedAt: Date | null;
  @Column('text', { nullable: true }) intentId: string | null;
  @Column('text', { nullable: true }) failureCode: string | null;
  @Column('text', { nullable: true }) failureReason: string | null;
  @Column('text', { nullable: true }) cancelledBy: string | null;
  @Column('timestamptz', { nullable: true }) cancelledAt: Date | null;
  @Column('timestamptz') createdAt: Date;
  @Column('timestamptz') updatedAt: Date;
}
