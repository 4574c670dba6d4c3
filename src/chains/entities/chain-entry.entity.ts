import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One append-only link of a chain; see chain-entry.ts for the hash and signature rules. */
@Entity('chain_entries')
export class ChainEntry {
  @PrimaryColumn('text') chainId: string;
  @PrimaryColumn('integer') seq: number;
  @Column('text') prevHash: string;
  @Column('text') hash: string;
  @Column('jsonb') payload: Record<string, unknown>;
  @Column('timestamptz') createdAt: Date;
  @Column('text') kid: string;
  @Column('text') jws: string;
}
