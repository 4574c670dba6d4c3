import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The head of a chain. Invariant: headHash is the hash of entry seq = length (GENESIS_HASH when
 * length = 0). Appenders lock this row (the upsert of `ChainRepository.lockHead`), which is what
 * serialises a chain.
 */
@Entity('chains')
export class Chain {
  @PrimaryColumn('text') id: string;
  @Column('text') headHash: string;
  @Column('integer') length: number;
  @Column('timestamptz') createdAt: Date;
  @Column('timestamptz') updatedAt: Date;
}
