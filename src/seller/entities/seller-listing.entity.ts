import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('seller_listings')
export class SellerListing {
  @PrimaryColumn('text') agentId: string;
  @Column('boolean') listed: boolean;
  @Column('timestamptz') updatedAt: Date;
}
