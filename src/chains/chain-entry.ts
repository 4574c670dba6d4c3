import { createHash, KeyObject } from 'node:crypto';

import { CompactSign } from 'jose';

import { canonicalJson } from '../common/canonical-json';

/** prev_hash of seq 1: 64 zeros. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * An entry as the service stores it, receipts publish it and verifyChain checks it (wire names).
 * created_at is the ISO-8601 string from Date#toISOString (UTC, milliseconds).
 */
export interface ChainEntryJson {
  chain_id: string;
  seq: number;
  prev_hash: string;
  hash: string;
  created_at: string;
  payload: Record<string, unknown>;
  kid: string;
  jws: string;
}

export type HashedFields = Pick<ChainEntryJson, 'chain_id' | 'seq' | 'created_at' | 'payload'>;

/**
 * The hash rule, re-checked by every verifier (verify-chain.ts, docs/verify-receipt.mjs):
 *
 *   hash = hex(SHA-256(prev_hash + "\n" + JCS({chain_id, seq, created_at, payload})))
 *
 * JCS is RFC 8785 (src/common/canonical-json.ts); prev_hash is the previous entry's hash, or
 * GENESIS_HASH for seq 1; hex is lowercase. kid and jws are outside the hash: the JWS signs it.
 */
export function entryHash(prevHash: string, fields: HashedFields): string {
  const body = canonicalJson({
    chain_id: fields.chain_id,
    seq: fields.seq,
    created_at: fields.created_at,
    payload: fields.payload,
  });
  return createHash('sha256').update(`${prevHash}\n${body}`, 'utf8').digest('hex');
}

/** Compact JWS over the hash hex string (UTF-8 bytes), protected header {alg: 'EdDSA', kid}. */
export function signHash(
  hash: string,
  key: { kid: string; privateKey: KeyObject },
): Promise<string> {
  return new CompactSign(new TextEncoder().encode(hash))
    .setProtectedHeader({ alg: 'EdDSA', kid: key.kid })
    .sign(key.privateKey);
}
