// Verifies a signed hash chain (receipt) offline. Needs Node >= 20 and `npm i jose canonicalize`.
//   node verify-receipt.mjs entries.json https://<service>/.well-known/jwks.json
// entries.json: the chain's entries in seq order (an array, or an object with an `entries` array).
// Exit code 0 and "valid" when every check passes; 1 and the first bad seq otherwise.
import canonicalize from 'canonicalize';
import { compactVerify, createLocalJWKSet } from 'jose';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

const [entriesPath, jwksSource] = process.argv.slice(2);
if (!entriesPath || !jwksSource) {
  console.error('usage: node verify-receipt.mjs <entries.json> <jwks URL or file>');
  process.exit(2);
}
const doc = JSON.parse(await readFile(entriesPath, 'utf8'));
const entries = Array.isArray(doc) ? doc : doc.entries;
const jwks = /^https?:/.test(jwksSource)
  ? await (await fetch(jwksSource)).json()
  : JSON.parse(await readFile(jwksSource, 'utf8'));
const keys = createLocalJWKSet(jwks);

function fail(seq, why) {
  console.error(`INVALID at seq ${seq}: ${why}`);
  process.exit(1);
}

let prev = '0'.repeat(64); // genesis prev_hash
for (const [i, e] of entries.entries()) {
  const seq = i + 1;
  if (e.seq !== seq) fail(seq, `seq is ${e.seq}`);
  if (e.chain_id !== entries[0].chain_id) fail(seq, 'chain_id differs from seq 1');
  if (e.prev_hash !== prev) fail(seq, 'prev_hash does not link to the previous hash');
  // hash = hex(SHA-256(prev_hash + "\n" + JCS({chain_id, seq, created_at, payload})))
  const body = canonicalize({
    chain_id: e.chain_id,
    seq: e.seq,
    created_at: e.created_at,
    payload: e.payload,
  });
  const hash = createHash('sha256').update(`${prev}\n${body}`, 'utf8').digest('hex');
  if (hash !== e.hash) fail(seq, 'recomputed hash differs');
  // base64url leaves spare bits in the last character; insist on the canonical signature encoding.
  const sig = e.jws.split('.')[2] ?? '';
  if (Buffer.from(sig, 'base64url').toString('base64url') !== sig) fail(seq, 'non-canonical JWS');
  const result = await compactVerify(e.jws, keys, { algorithms: ['EdDSA'] }).catch((err) =>
    fail(seq, `signature: ${err.message}`),
  );
  if (result.protectedHeader.kid !== e.kid) fail(seq, 'JWS kid differs from entry kid');
  if (new TextDecoder().decode(result.payload) !== e.hash) fail(seq, 'JWS payload is not the hash');
  prev = e.hash;
}
console.log(`valid: ${entries.length} entries, head ${prev}`);
