import { Injectable } from '@nestjs/common';
import { LessThanOrEqual } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';

import { Tx } from '../database/tx';
import { GENESIS_HASH } from './chain-entry';
import { Chain } from './entities/chain.entity';
import { ChainEntry } from './entities/chain-entry.entity';

@Injectable()
export class ChainRepository {
  constructor(private readonly tx: Tx) {}

  /**
   * Creates the chain row if needed, then locks it until the surrounding transaction ends. Under
   * READ COMMITTED a concurrent first append waits on the other's uncommitted INSERT, then finds
   * the row; FOR UPDATE then hands out the head one appender at a time.
   */
  async lockHead(chainId: string, now: Date): Promise<Chain> {
    const m = this.tx.manager;
    await m
      .createQueryBuilder()
      .insert()
      .into(Chain)
      .values({ id: chainId, headHash: GENESIS_HASH, length: 0, createdAt: now, updatedAt: now })
      .orIgnore()
      .execute();
    return m.findOneOrFail(Chain, { where: { id: chainId }, lock: { mode: 'pessimistic_write' } });
  }

  async insertEntry(entry: ChainEntry): Promise<void> {
    // TypeORM's deep-partial type cannot express an open jsonb object; the row is complete.
    await this.tx.manager.insert(ChainEntry, entry as QueryDeepPartialEntity<ChainEntry>);
  }

  async advanceHead(chainId: string, headHash: string, length: number, now: Date): Promise<void> {
    await this.tx.manager.update(Chain, { id: chainId }, { headHash, length, updatedAt: now });
  }

  findHead(chainId: string): Promise<Chain | null> {
    return this.tx.manager.findOneBy(Chain, { id: chainId });
  }

  listEntries(chainId: string, maxSeq?: number): Promise<ChainEntry[]> {
    return this.tx.manager.find(ChainEntry, {
      where: maxSeq === undefined ? { chainId } : { chainId, seq: LessThanOrEqual(maxSeq) },
      order: { seq: 'ASC' },
    });
  }

  findEntry(chainId: string, seq: number): Promise<ChainEntry | null> {
    return this.tx.manager.findOneBy(ChainEntry, { chainId, seq });
  }
}
