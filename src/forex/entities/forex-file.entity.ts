import { Column, Entity, PrimaryColumn } from 'typeorm';

import { paise } from '../../database/bigint.transformer';
import type { FileStatus } from '../forex-file.state';
import type { FileKind } from '../forex-rules';

export interface DealerNote {
  at: string;
  action: 'returned' | 'rejected' | 'booked';
  note: string;
  dealer_name: string;
}

/** A forex file (fxo_…). Never holds a raw PAN: pan_hash is a keyed HMAC, pan_masked XXXXX1234X. */
@Entity('forex_files')
export class ForexFile {
  @PrimaryColumn('text') id: string;
  @Column('text') workspaceId: string;
  @Column('text') agentId: string;
  @Column('text') personId: string;
  @Column('text') partnerId: string;
  @Column('text') kind: FileKind;
  @Column('text') purposeCode: string;
  @Column('text') travellerName: string;
  @Column('text', { nullable: true }) beneficiaryName: string | null;
  @Column('text', { nullable: true }) companyName: string | null;
  @Column('text') destinationCountry: string;
  @Column('date', { nullable: true }) departureDate: string | null;
  @Column('date', { nullable: true }) returnDate: string | null;
  @Column('boolean') educationLoanFunded: boolean;
  @Column('text', { nullable: true }) notes: string | null;
  @Column('text') panHash: string;
  @Column('integer') panKeyVersion: number;
  @Column('text') panMasked: string;
  @Column('text') panHolderType: string;
  @Column('text') status: FileStatus;
  @Column('text', { nullable: true }) currentQuoteId: string | null;
  @Column('text', { nullable: true }) lrsFinancialYear: string | null;
  @Column('bigint', { transformer: paise }) lrsUsdCents: number;
  @Column('bigint', { transformer: paise }) lrsInrPaise: number;
  @Column('integer') submissions: number;
  @Column('integer') returns: number;
  @Column('timestamptz', { nullable: true }) submittedAt: Date | null;
  @Column('timestamptz', { nullable: true }) declarationDueAt: Date | null;
  @Column('timestamptz', { nullable: true }) declaredAt: Date | null;
  @Column('text', { nullable: true }) declaredBy: string | null;
  @Column('timestamptz', { nullable: true }) decidedAt: Date | null;
  @Column('text', { nullable: true }) decidedBy: string | null;
  @Column('text', { nullable: true }) dealReference: string | null;
  @Column('jsonb') dealerNotes: DealerNote[];
  @Column('text') receiptId: string;
  @Column('timestamptz') createdAt: Date;
  @Column('timestamptz') updatedAt: Date;
  /**
   * Salt of the traveller-name digest in the file's chain (src/personal-data/personal-digest.ts);
   * null once erased (migration 1764000000400-PersonalData).
   */
  @Column('text', { nullable: true }) travellerNameSalt: string | null;
  @Column('timestamptz', { nullable: true }) erasedAt: Date | null;
}
