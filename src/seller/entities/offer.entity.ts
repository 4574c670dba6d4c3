import { Column, Entity, PrimaryColumn } from 'typeorm';

import { paise } from '../../database/bigint.transformer';

/** A published price (docs/seller-surface.md "Seller surface"). Withdrawn offers stay, inactive, for history. */
@Entity('offers')
export class Offer {
  @PrimaryColumn('text') id: string;
  @Column('text') sellerAgentId: string;
  @Column('text') sku: string;
  @Column('text') name: string;
  @Column('bigint', { transformer: paise }) unitPaise: number;
  @Column('text') category: string;
  @Column('boolean') active: boolean;
  @Column('timestamptz') createdAt: Date;
  @Column('timestamptz') updatedAt: Date;
}
