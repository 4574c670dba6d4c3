import { Column, Entity, PrimaryColumn } from 'typeorm';

import { paise } from '../../database/bigint.transformer';
import type { Product, TcsComputation } from '../forex-rules';

/** One priced line as quoted (wire names; kept as it was: a quote is a document). */
export interface QuoteLine {
  currency: string;
  product: Product;
  /** Canonical decimal text with the currency's minor units. */
  foreign_amount: string;
  /** The locked rate, ten-thousandths of a rupee per one unit. */
  rate: number;
  rate_side: 'buy' | 'sell';
  rupees_paise: number;
  /** The line's USD equivalent in cents (rounded up), used for the LRS and cash limits. */
  usd_cents: number;
}

@Entity('forex_quotes')
export class ForexQuote {
  @PrimaryColumn('text') id: string;
  @Column('text') fileId: string;
  @Column('text') partnerId: string;
  @Column('jsonb') lines: QuoteLine[];
  @Column('bigint', { transformer: paise }) rupeesPaise: number;
  @Column('bigint', { transformer: paise }) feePaise: number;
  @Column('bigint', { transformer: paise }) tcsPaise: number;
  @Column('bigint', { transformer: paise }) totalPaise: number;
  @Column('text') direction: 'person_pays' | 'person_receives';
  @Column('bigint', { transformer: paise }) usdReferenceRate: number;
  @Column('bigint', { transformer: paise }) usdEquivalentCents: number;
  @Column('bigint', { transformer: paise }) notesUsdCents: number;
  @Column('text') financialYear: string;
  @Column('bigint', { transformer: paise }) lrsPriorUsdCents: number;
  @Column('jsonb', { nullable: true }) tcs: TcsComputation | null;
  @Column('timestamptz') rateLockedUntil: Date;
  @Column('timestamptz') createdAt: Date;
}
