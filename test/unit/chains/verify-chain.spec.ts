import { execFile } from 'node:child_process';
import { createHash, generateKeyPairSync, KeyObject } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import fc from 'fast-check';
import { calculateJwkThumbprint, exportJWK, JSONWebKeySet } from 'jose';

import { ChainEntryJson, entryHash, GENESIS_HASH, signHash } from '../../../src/chains/chain-entry';
import { verifyChain } from '../../../src/chains/verify-chain';
import { canonicalJson } from '../../../src/common/canonical-json';

interface TestKey {
  kid: string;
  privateKey: KeyObject;
  jwk: JSONWebKeySet['keys'][number];
}

async function newKey(): Promise<TestKey> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const pub = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(pub);
  return { kid, privateKey, jwk: { ...pub, kid, alg: 'EdDSA', use: 'sig' } };
}

/** Builds a chain exactly as ChainService.append does, one key per entry (cycled). */
async function buildChain(
  payloads: Record<string, unknown>[],
  keys: TestKey[],
  chainId = 'chain_unit',
): Promise<ChainEntryJson[]> {
  const out: ChainEntryJson[] = [];
  let prev = GENESIS_HASH;
  for (const [i, payload] of payloads.entries()) {
    const key = keys[i % keys.length];
    const fields = {
      chain_id: chainId,
      seq: i + 1,
      created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      payload,
    };
    const hash = entryHash(prev, fields);
    out.push({ ...fields, prev_hash: prev, hash, kid: key.kid, jws: await signHash(hash, key) });
    prev = hash;
  }
  return out;
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

describe('verifyChain', () => {
  let k1: TestKey;
  let k2: TestKey;
  let jwks: JSONWebKeySet;
  let chain: ChainEntryJson[];

  beforeAll(async () => {
    [k1, k2] = await Promise.all([newKey(), newKey()]);
    jwks = { keys: [k1.jwk, k2.jwk] };
    chain = await buildChain(
      [
        { amount: 1000, note: 'first' },
        { nested: { a: [1, 'x', null], b: true } },
        { amount: 0.5 },
        {},
      ],
      [k1, k2],
    );
  });

  it('accepts an intact chain signed by several keys, after a JSON round trip', async () => {
    expect(await verifyChain(clone(chain), jwks)).toEqual({
      valid: true,
      length: 4,
      first_bad_seq: null,
      reason: null,
    });
  });

  it('accepts an empty chain', async () => {
    expect(await verifyChain([], jwks)).toMatchObject({ valid: true, length: 0 });
  });

  it('pins the hash rule to SHA-256(prev_hash + "\\n" + JCS(fields))', () => {
    const fields = {
      chain_id: 'c',
      seq: 1,
      created_at: '2026-01-01T00:00:00.000Z',
      payload: { b: 1, a: 2 },
    };
    const expected = createHash('sha256')
      .update(
        `${GENESIS_HASH}\n{"chain_id":"c","created_at":"2026-01-01T00:00:00.000Z","payload":{"a":2,"b":1},"seq":1}`,
      )
      .digest('hex');
    expect(entryHash(GENESIS_HASH, fields)).toBe(expected);
  });

  it('rejects an entry whose key is missing from the JWKS', async () => {
    const res = await verifyChain(chain, { keys: [k1.jwk] });
    expect(res).toMatchObject({ valid: false, first_bad_seq: 2 });
    expect(res.reason).toMatch(/^signature:/);
  });

  it('rejects a signature by another key that claims the right kid', async () => {
    const forged = clone(chain);
    forged[2].jws = await signHash(forged[2].hash, {
      kid: forged[2].kid,
      privateKey: k2.privateKey,
    });
    const res = await verifyChain(forged, jwks);
    expect(res).toMatchObject({ valid: false, first_bad_seq: 3 });
    expect(res.reason).toMatch(/^signature:/);
  });

  it('rejects a valid JWS of another entry (payload is not this hash)', async () => {
    const swapped = clone(chain);
    swapped[1].jws = chain[3].jws;
    swapped[1].kid = chain[3].kid;
    const res = await verifyChain(swapped, jwks);
    expect(res).toMatchObject({
      valid: false,
      first_bad_seq: 2,
      reason: 'jws: signed payload does not equal the hash',
    });
  });

  it('rejects a signature re-encoded in the spare base64url bits', async () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const tampered = clone(chain);
    const last = tampered[0].jws.at(-1)!;
    tampered[0].jws = tampered[0].jws.slice(0, -1) + alphabet[alphabet.indexOf(last) ^ 1];
    const res = await verifyChain(tampered, jwks);
    expect(res).toMatchObject({ valid: false, first_bad_seq: 1 });
    expect(res.reason).toMatch(/^signature:/);
  });

  it('reports a gap, a reorder and a truncation against the recorded head', async () => {
    expect(await verifyChain([chain[0], chain[2], chain[3]], jwks)).toMatchObject({
      first_bad_seq: 2,
      reason: 'seq: expected 2, found 3',
    });
    expect(await verifyChain([chain[1], chain[0]], jwks)).toMatchObject({ first_bad_seq: 1 });
    const head = { length: 4, head_hash: chain[3].hash };
    expect(await verifyChain(chain, jwks, head)).toMatchObject({ valid: true });
    expect(await verifyChain(chain.slice(0, 3), jwks, head)).toMatchObject({
      valid: false,
      first_bad_seq: 4,
      reason: 'head: chain records 4 entries, found 3',
    });
  });

  describe('a chain spliced from two validly signed histories', () => {
    // Two histories of one chain_id that differ from seq 1: every entry's own hash (over its own
    // prev_hash) and signature is valid, so only the prev_hash link can reveal the splice.
    const forked = (keysA: TestKey[], keysB: TestKey[]) =>
      Promise.all([
        buildChain([{ n: 1 }, { n: 2 }, { n: 3, to: 'alice' }, { n: 4 }], keysA, 'chain_fork'),
        buildChain(
          [{ n: 1, v: 'b' }, { n: 2, amount: 9 }, { n: 3, to: 'mallory' }, { n: 4 }],
          keysB,
          'chain_fork',
        ),
      ]);

    it.each([
      ['one key', () => [k1], () => [k1]],
      ['two keys, both trusted', () => [k1], () => [k2]],
    ])('fails on the prev_hash link at the splice point (%s)', async (_name, keysA, keysB) => {
      const [a, b] = await forked(keysA(), keysB());
      // Each history on its own is sound, and the entries taken from b carry their own valid hash.
      expect(await verifyChain(a, jwks)).toMatchObject({ valid: true, length: 4 });
      expect(await verifyChain(b, jwks)).toMatchObject({ valid: true, length: 4 });
      expect(entryHash(b[2].prev_hash, b[2])).toBe(b[2].hash);
      expect(b[2].prev_hash).not.toBe(a[1].hash);

      const spliced = clone([a[0], a[1], b[2], b[3]]);
      expect(await verifyChain(spliced, jwks)).toEqual({
        valid: false,
        length: 4,
        first_bad_seq: 3,
        reason: 'prev_hash: does not equal the hash of seq 2',
      });
      // Spliced the other way round, and at the first link.
      expect(await verifyChain(clone([b[0], b[1], a[2]]), jwks)).toMatchObject({
        first_bad_seq: 3,
        reason: 'prev_hash: does not equal the hash of seq 2',
      });
      expect(await verifyChain(clone([a[0], b[1], b[2], b[3]]), jwks)).toMatchObject({
        first_bad_seq: 2,
        reason: 'prev_hash: does not equal the hash of seq 1',
      });
    });

    it('docs/verify-receipt.mjs reports the same broken link', async () => {
      const [a, b] = await forked([k1], [k2]);
      const dir = await mkdtemp(join(tmpdir(), 'splice-'));
      const run = (file: string) =>
        promisify(execFile)(process.execPath, [
          'docs/verify-receipt.mjs',
          file,
          join(dir, 'jwks.json'),
        ]);
      try {
        await writeFile(join(dir, 'jwks.json'), JSON.stringify(jwks));
        for (const [name, entries] of Object.entries({ a, b, spliced: [a[0], a[1], b[2], b[3]] })) {
          await writeFile(join(dir, `${name}.json`), JSON.stringify(entries));
        }
        expect((await run(join(dir, 'a.json'))).stdout).toContain('valid: 4 entries');
        expect((await run(join(dir, 'b.json'))).stdout).toContain('valid: 4 entries');
        await expect(run(join(dir, 'spliced.json'))).rejects.toMatchObject({
          code: 1,
          stderr: 'INVALID at seq 3: prev_hash does not link to the previous hash\n',
        });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });

  it('never throws on garbage', async () => {
    expect(await verifyChain([null as never], jwks)).toMatchObject({
      valid: false,
      first_bad_seq: 1,
    });
    expect(await verifyChain(chain, { keys: 'nope' } as never)).toMatchObject({ valid: false });
  });

  it('detects any single-field mutation of any entry, at that entry', async () => {
    const fields = [
      'chain_id',
      'seq',
      'prev_hash',
      'hash',
      'created_at',
      'payload',
      'kid',
      'jws',
    ] as const;
    const tweakString = (s: string, at: number, c: string) => {
      const i = at % (s.length + 1);
      return s.slice(0, i) + c + s.slice(i + 1);
    };
    const mutation = fc.record({
      index: fc.nat({ max: 3 }),
      field: fc.constantFrom(...fields),
      value: fc.oneof(
        fc.jsonValue(),
        fc
          .record({ at: fc.nat(), c: fc.string({ minLength: 1, maxLength: 1 }) })
          .map((m) => ({ tweak: m })),
        fc.integer({ min: -3, max: 3 }).map((d) => ({ delta: d })),
      ),
    });
    await fc.assert(
      fc.asyncProperty(mutation, async ({ index, field, value }) => {
        const entries = clone(chain);
        const entry = entries[index] as unknown as Record<string, unknown>;
        const old = entry[field];
        let next: unknown = value;
        if (value && typeof value === 'object' && 'tweak' in value && typeof old === 'string') {
          const t = (value as { tweak: { at: number; c: string } }).tweak;
          next = tweakString(old, t.at, t.c);
        } else if (
          value &&
          typeof value === 'object' &&
          'delta' in value &&
          typeof old === 'number'
        ) {
          next = old + (value as { delta: number }).delta;
        } else if (value && typeof value === 'object' && 'delta' in value) {
          next = { ...(old as object), extra: (value as { delta: number }).delta };
        }
        fc.pre(canonicalJson(next) !== canonicalJson(old));
        entry[field] = next;
        const res = await verifyChain(entries, jwks);
        expect(res.valid).toBe(false);
        expect(res.first_bad_seq).toBe(index + 1);
        expect(res.reason).toEqual(expect.any(String));
      }),
      { numRuns: 400 },
    );
  });
});
