import { Injectable } from '@nestjs/common';

import { Clock } from '../common/clock';
import { Tx } from '../database/tx';
import { ChainEntryRow, ChainRepository } from './chain.repository';
import { ChainEntryJson, entryHash, GENESIS_HASH } from './chain-entry';
import { toChainEntryJson } from './chain-entry.mapper';
import { SigningKeyService } from './signing-key.service';
import { ChainVerification, verifyChain } from './verify-chain';

/**
 * Append-only, signed hash chains (hash rule in chain-entry.ts). Receipts are built on these.
 * Invariants: per chain, seq runs 1..length without gaps; entry n's prev_hash is entry n-1's
 * hash; chains.head_hash/length describe the last entry. They hold because every append locks
 * the chain row first.
 */
@Injectable()
export class ChainService {
  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly chains: ChainRepository,
    private readonly signingKeys: SigningKeyService,
  ) {}

  /**
   * Appends payload to chainId (creating the chain on first use) and returns the signed entry.
   * Joins the caller's transaction, so the entry commits or rolls back with the business write
   * (a receipt with its payment). The chain row stays locked until that transaction ends: append
   * late in the transaction. Two statements: the head, locked (`ChainRepository.lockHead`), then
   * the entry with the head moved (`ChainRepository.appendEntry`).
   */
  append(chainId: string, payload: object): Promise<ChainEntryJson> {
    return this.tx.run(async () => {
      const head = await this.chains.lockHead(chainId, this.clock.now());
      // Read the clock under the lock so created_at never decreases along seq.
      const { entry, row } = await this.signed(chainId, head.length + 1, head.headHash, payload);
      await this.chains.appendEntry(row);
      return entry;
    });
  }

  /**
   * Starts a new chain whose id the caller has just minted (a receipt `rcp_…`) with payload as
   * entry 1, written with the commit's one statement and without waiting on any lock: nobody else
   * can know the id yet (nor read it before the commit). The commit fails if the chain exists;
   * `append` is for chains that may.
   */
  start(chainId: string, payload: object): Promise<ChainEntryJson> {
    return this.tx.run(async () => {
      const { entry, row } = await this.signed(chainId, 1, GENESIS_HASH, payload);
      await this.chains.startAtCommit(row);
      return entry;
    });
  }

  /** Entry `seq` after `prevHash`, hashed and signed, dated now. */
  private async signed(
    chainId: string,
    seq: number,
    prevHash: string,
    payload: object,
  ): Promise<{ entry: ChainEntryJson; row: ChainEntryRow }> {
    // Hash exactly what jsonb will give back: JSON drops undefined and turns Dates into strings.
    const body = JSON.parse(JSON.stringify(payload)) as Record<string, unknown>;
    const now = this.clock.now();
    const fields = { chain_id: chainId, seq, created_at: now.toISOString(), payload: body };
    const hash = entryHash(prevHash, fields);
    const { kid, jws } = await this.signingKeys.sign(hash);
    return {
      entry: { ...fields, prev_hash: prevHash, hash, kid, jws },
      row: { chainId, seq, prevHash, hash, payload: body, createdAt: now, kid, jws },
    };
  }

  /** All entries, seq ascending; empty for an unknown chain. */
  async entries(chainId: string): Promise<ChainEntryJson[]> {
    return (await this.chains.listEntries(chainId)).map(toChainEntryJson);
  }

  /** One entry, or null. */
  async entry(chainId: string, seq: number): Promise<ChainEntryJson | null> {
    const row = await this.chains.findEntry(chainId, seq);
    return row ? toChainEntryJson(row) : null;
  }

  /**
   * Verifies the stored chain against the service's own JWKS and the chain row's head, which
   * also catches entries deleted from the end. Entries past the head we read are ignored, so a
   * concurrent append cannot make a sound chain look broken. An unknown chain is valid, length 0.
   */
  async verify(chainId: string): Promise<ChainVerification> {
    const head = await this.chains.findHead(chainId);
    const rows = await this.chains.listEntries(chainId, head?.length ?? 0);
    const jwks = await this.signingKeys.jwks();
    return verifyChain(
      rows.map(toChainEntryJson),
      jwks,
      head ? { length: head.length, head_hash: head.headHash } : undefined,
    );
  }
}
