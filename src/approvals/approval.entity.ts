import { Column, Entity, PrimaryColumn } from 'typeorm';

import { paise } from '../database/bigint.transformer';

export type ApprovalKind = 'payment' | 'refund' | 'recurring_charge';
export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'withdrawn';

/** A question for a person in the app. Only a signed-in person can answer it. */
@Entity('approvals')
export class Approval {
  @PrimaryColumn('text') id: string;
  @Column('text') workspaceId: string;
  @Column('text') kind: ApprovalKind;
  @Column('text') subjectId: string;
  @Column('bigint', { transformer: paise }) amountPaise: number;
  @Column('text') summary: string;
  @Column('text') status: ApprovalStatus;
  @Column('text', { nullable: true }) decidedBy: string | null;
  @Column('timestamptz', { nullable: true }) decidedAt: Date | null;
  /** For the person: why it was withdrawn, or why an approved payment could not go ahead. */
  @Column('text', { nullable: true }) note: string | null;
  @Column('timestamptz') expiresAt: Date;
  @Column('timestamptz') createdAt: Date;
}
