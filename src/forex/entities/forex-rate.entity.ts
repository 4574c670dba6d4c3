import { Column, Entity, PrimaryColumn } from 'typeorm';

import { paise } from '../../database/bigint.transformer';

/**
 * A partner's current rates for one currency: integer ten-thousandths of a rupee per ONE unit.
 * buy: the partner buys the currency from the person (buy-back); sell: sells it to the person.
 * card_* also price remittances (TT rates).
 */
@Entity('forex_rates')
export class ForexRate {
  @PrimaryColumn('text') partnerId: string;
  @PrimaryColumn('text') currency: string;
  @Column('bigint', { transformer: paise }) notesBuy: number;
  @Column('bigint', { transformer: paise }) notesSell: number;
  @Column('bigint', { transformer: paise }) cardBuy: number;
  @Column('bigint', { transformer: paise }) cardSell: number;
  @Column('timestamptz') setAt: Date;
  /** The dealer (person id) who set them, or 'seed'. */
  @Column('text') setBy: string;
}
