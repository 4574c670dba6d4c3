import { compactVerify, createLocalJWKSet, JSONWebKeySet } from 'jose';

import { ChainEntryJson, entryHash, GENESIS_HASH } from './chain-entry';

export interface ChainVerification {
  valid: boolean;
  /** Number of entries examined. */
  length: number;
  /** The first position (seq) at which the chain stops being trustworthy; null when valid. */
  first_bad_seq: number | null;
  /** What failed there, prefixed by the field (`seq: …`, `hash: …`, `signature: …`). */
  reason: string | null;
}

/** What the chain row says the head is; lets a verifier notice entries cut off the end. */
export interface ExpectedHead {
  length: number;
  head_hash: string;
}

type KeyResolver = ReturnType<typeof createLocalJWKSet>;

/**
 * Verifies a whole chain offline: entries in order (seq 1..n) plus the service's public JWKS
 * (GET /.well-known/jwks.json). No Nest, no database: buyers and sellers can run it as is.
 * For each entry, in order:
 *   1. seq equals its position (1-based) and chain_id equals the first entry's;
 *   2. prev_hash equals the previous entry's hash (GENESIS_HASH for seq 1);
 *   3. hash equals entryHash(prev_hash, {chain_id, seq, created_at, payload});
 *   4. jws is a valid EdDSA compact JWS by the JWKS key named by its header kid, that kid equals
 *      the entry's kid, and its payload is exactly the hash.
 * The first failing entry is reported; entries after it are not examined. Never throws.
 */
export async function verifyChain(
  entries: readonly ChainEntryJson[],
  jwks: JSONWebKeySet,
  expectedHead?: ExpectedHead,
): Promise<ChainVerification> {
  let keys: KeyResolver;
  try {
    keys = createLocalJWKSet(jwks);
  } catch (err) {
    return bad(entries.length, entries.length > 0 ? 1 : null, `jwks: ${(err as Error).message}`);
  }
  let prev = GENESIS_HASH;
  for (let i = 0; i < entries.length; i++) {
    const seq = i + 1;
    // entries[0] may be garbage; checkEntry rejects it before chainId matters.
    const problem = await checkEntry(entries[i], seq, entries[0]?.chain_id, prev, keys);
    if (problem) {
      return bad(entries.length, seq, problem);
    }
    prev = entries[i].hash;
  }
  if (expectedHead) {
    if (expectedHead.length !== entries.length) {
      return bad(
        entries.length,
        Math.min(expectedHead.length, entries.length) + 1,
        `head: chain records ${expectedHead.length} entries, found ${entries.length}`,
      );
    }
    if (expectedHead.head_hash !== prev) {
      return bad(
        entries.length,
        Math.max(entries.length, 1),
        'head: chain head hash differs from the last entry hash',
      );
    }
  }
  return { valid: true, length: entries.length, first_bad_seq: null, reason: null };
}

async function checkEntry(
  e: ChainEntryJson,
  seq: number,
  chainId: string,
  prev: string,
  keys: KeyResolver,
): Promise<string | null> {
  try {
    const shape = malformed(e);
    if (shape) {
      return `malformed: ${shape}`;
    }
    if (e.seq !== seq) {
      return `seq: expected ${seq}, found ${e.seq}`;
    }
    if (e.chain_id !== chainId) {
      return `chain_id: expected ${chainId}, found ${e.chain_id}`;
    }
    if (e.prev_hash !== prev) {
      return seq === 1
        ? 'prev_hash: seq 1 must link to the genesis hash'
        : `prev_hash: does not equal the hash of seq ${seq - 1}`;
    }
    if (entryHash(e.prev_hash, e) !== e.hash) {
      return 'hash: recomputed hash differs from the stored hash';
    }
    return await checkSignature(e, keys);
  } catch (err) {
    return `malformed: ${(err as Error).message}`;
  }
}

async function checkSignature(e: ChainEntryJson, keys: KeyResolver): Promise<string | null> {
  const parts = e.jws.split('.');
  // base64url is malleable in the unused low bits of the last character (Node's decoder ignores
  // them), so an altered jws string could still verify. Require the canonical encoding.
  if (parts.length !== 3 || Buffer.from(parts[2], 'base64url').toString('base64url') !== parts[2]) {
    return 'signature: jws is not a canonical compact JWS';
  }
  let verified: Awaited<ReturnType<typeof compactVerify>>;
  try {
    verified = await compactVerify(e.jws, keys, { algorithms: ['EdDSA'] });
  } catch (err) {
    return `signature: ${(err as Error).message}`;
  }
  if (verified.protectedHeader.kid !== e.kid) {
    return `kid: entry names ${e.kid} but the JWS was signed by ${verified.protectedHeader.kid}`;
  }
  if (new TextDecoder().decode(verified.payload) !== e.hash) {
    return 'jws: signed payload does not equal the hash';
  }
  return null;
}

function malformed(e: unknown): string | null {
  if (!e || typeof e !== 'object') {
    return 'entry is not an object';
  }
  const r = e as Record<string, unknown>;
  if (!Number.isSafeInteger(r.seq)) {
    return 'seq must be an integer';
  }
  for (const f of ['chain_id', 'prev_hash', 'hash', 'created_at', 'kid', 'jws']) {
    if (typeof r[f] !== 'string') {
      return `${f} must be a string`;
    }
  }
  if (!r.payload || typeof r.payload !== 'object' || Array.isArray(r.payload)) {
    return 'payload must be an object';
  }
  return null;
}

function bad(length: number, seq: number | null, reason: string): ChainVerification {
  return { valid: false, length, first_bad_seq: seq, reason };
}
