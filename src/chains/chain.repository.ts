import { Injectable } from '@nestjs/common';
import { LessThanOrEqual } from 'typeorm';

import { batchColumns, batchInsert } from '../database/batch';
import { QueuedStatement, Tx } from '../database/tx';
import { GENESIS_HASH } from './chain-entry';
import { Chain } from './entities/chain.entity';
import { ChainEntry } from './entities/chain-entry.entity';

/** A chain entry as stored (payload: a JSON object, hashed as it is). */
export interface ChainEntryRow {
  chainId: string;
  seq: number;
  prevHash: string;
  hash: string;
  payload: Record<string, unknown>;
  createdAt: Date;
  kid: string;
  jws: string;
}

function entryParams(e: ChainEntryRow): unknown[] {
  return [
    e.chainId,
    e.seq,
    e.prevHash,
    e.hash,
    JSON.stringify(e.payload),
    e.createdAt,
    e.kid,
    e.jws,
  ];
}

@Injectable()
export class ChainRepository {
  constructor(private readonly tx: Tx) {}

  /**
   * The chain's head, locked until the surrounding transaction ends, in one statement: the row is
   * inserted empty (GENESIS_HASH, length 0) if the chain is new, otherwise the upsert's no-op update
   * locks it (FOR NO KEY UPDATE: it conflicts with every other appender, not with the KEY SHARE
   * locks of foreign-key checks) and returns its latest committed version. Under READ COMMITTED a
   * concurrent first append waits on the other's uncommitted INSERT, then takes the committed row;
   * so appenders get the head one at a time.
   */
  async lockHead(chainId: string, now: Date): Promise<Pick<Chain, 'headHash' | 'length'>> {
    const [head] = await this.tx.manager.query<{ head_hash: string; length: number }[]>(
      `INSERT INTO chains AS c (id, head_hash, length, created_at, updated_at)
       VALUES ($1, $2, 0, $3, $3)
       ON CONFLICT (id) DO UPDATE SET updated_at = c.updated_at
       RETURNING c.head_hash, c.length`,
      [chainId, GENESIS_HASH, now],
    );
    return { headHash: head.head_hash, length: head.length };
  }

  /**
   * Appends `entry` to the chain whose head is locked (`lockHead`) and moves the head to it, in one
   * statement. Fails if the entry's seq or hash is taken (so a stale head can never be written).
   */
  async appendEntry(entry: ChainEntryRow): Promise<void> {
    await this.tx.manager.query(
      `WITH entry AS (
         INSERT INTO chain_entries (chain_id, seq, prev_hash, hash, payload, created_at, kid, jws)
         VALUES ($1, $2, $3, $4, $5::text::jsonb, $6, $7, $8)
         RETURNING chain_id, seq, hash, created_at
       )
       UPDATE chains SET head_hash = entry.hash, length = entry.seq, updated_at = entry.created_at
         FROM entry WHERE chains.id = entry.chain_id`,
      entryParams(entry),
    );
  }

  /**
   * Starts a new chain with its first entry (seq 1 after GENESIS_HASH): the chain row and the entry
   * are queued for the commit's one statement (`Tx.writeBeforeCommit`; nothing reads them back in
   * the transaction that mints the id). The commit fails (unique violation) if the chain exists:
   * only for ids minted for this chain.
   */
  async startAtCommit(entry: ChainEntryRow): Promise<void> {
    await this.tx.writeBeforeCommit('chains.start', entry, insertNewChains);
    await this.tx.writeBeforeCommit('chain_entries.first', entry, insertFirstEntries);
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

/** New chains' head rows (their first entry is the head), as one INSERT. */
const NEW_CHAIN_COLUMNS = batchColumns<ChainEntryRow>({
  id: ['text', (r) => r.chainId],
  head_hash: ['text', (r) => r.hash],
  length: ['int', (r) => r.seq],
  created_at: ['timestamptz', (r) => r.createdAt],
  updated_at: ['timestamptz', (r) => r.createdAt],
});

function insertNewChains(rows: ChainEntryRow[]): QueuedStatement {
  return batchInsert('chains', NEW_CHAIN_COLUMNS, rows);
}

/** New chains' first entries, as one INSERT. */
const ENTRY_COLUMNS = batchColumns<ChainEntryRow>({
  chain_id: ['text', (r) => r.chainId],
  seq: ['int', (r) => r.seq],
  prev_hash: ['text', (r) => r.prevHash],
  hash: ['text', (r) => r.hash],
  payload: ['jsonb', (r) => r.payload],
  created_at: ['timestamptz', (r) => r.createdAt],
  kid: ['text', (r) => r.kid],
  jws: ['text', (r) => r.jws],
});

function insertFirstEntries(rows: ChainEntryRow[]): QueuedStatement {
  return batchInsert('chain_entries', ENTRY_COLUMNS, rows);
}
