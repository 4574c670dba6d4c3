import { ChainEntryJson } from './chain-entry';
import { ChainEntry } from './entities/chain-entry.entity';

export function toChainEntryJson(e: ChainEntry): ChainEntryJson {
  return {
    chain_id: e.chainId,
    seq: e.seq,
    prev_hash: e.prevHash,
    hash: e.hash,
    // timestamptz keeps microseconds, so the millisecond ISO string that was hashed round-trips.
    created_at: e.createdAt.toISOString(),
    payload: e.payload,
    kid: e.kid,
    jws: e.jws,
  };
}
