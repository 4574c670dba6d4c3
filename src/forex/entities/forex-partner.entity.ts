import { Column, Entity, PrimaryColumn } from 'typeorm';

import { paise } from '../../database/bigint.transformer';

/** An AD Category-II partner; its own workspace's people are its dealers. */
@Entity('forex_partners')
export class ForexPartner {
  @PrimaryColumn('text') id: string;
  @Column('text') workspaceId: string;
  @Column('text') name: string;
  @Column('text') licenceNumber: string;
  @Column('text') category: 'ad_category_ii';
  /** Flat fee per quote. */
  @Column('bigint', { transformer: paise }) serviceFeePaise: number;
  @Column('timestamptz') createdAt: Date;
}
