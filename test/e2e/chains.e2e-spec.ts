import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { calculateJwkThumbprint, compactVerify, createLocalJWKSet, exportJWK } from 'jose';
import request from 'supertest';

import { ChainService } from '../../src/chains/chain.service';
import { ChainEntryJson, GENESIS_HASH } from '../../src/chains/chain-entry';
import { SigningKeyRepository } from '../../src/chains/signing-key.repository';
import { SigningKeyService } from '../../src/chains/signing-key.service';
import { verifyChain } from '../../src/chains/verify-chain';
import { randomToken } from '../../src/common/ids';
import { Tx } from '../../src/database/tx';
import { startApp, TestApp } from '../support/app';
import { SqlCounter } from '../support/sql-counter';

const newChainId = () => `chain_test_${randomToken(12)}`;

describe(ChainService.name, () => {
  let t: TestApp;
  let chains: ChainService;

  beforeAll(async () => {
    t = await startApp();
    chains = t.get(ChainService);
  });
  afterAll(() => t.close());

  async function appendN(chainId: string, n: number) {
    for (let i = 1; i <= n; i++) {
      await chains.append(chainId, { i, amount_paise: i * 100 });
    }
  }

  it('appends linked, signed entries that verify', async () => {
    const id = newChainId();
    const a = await chains.append(id, { step: 'checkout', amount_paise: 150_000 });
    const b = await chains.append(id, { step: 'payment', at: new Date(0), skipped: undefined });
    const c = await chains.append(id, { step: 'settled' });

    expect([a.seq, b.seq, c.seq]).toEqual([1, 2, 3]);
    expect(a.prev_hash).toBe(GENESIS_HASH);
    expect(b.prev_hash).toBe(a.hash);
    expect(c.prev_hash).toBe(b.hash);
    expect(a.kid).toBe(t.get(SigningKeyService).kid);
    // The returned entry is what a reader gets back from the database.
    expect(b.payload).toEqual({ step: 'payment', at: '1970-01-01T00:00:00.000Z' });
    expect(await chains.entries(id)).toEqual([a, b, c]);
    expect(await chains.entry(id, 2)).toEqual(b);
    expect(await chains.entry(id, 4)).toBeNull();
    expect(await chains.verify(id)).toEqual({
      valid: true,
      length: 3,
      first_bad_seq: null,
      reason: null,
    });

    const [head] = await t.db.query('SELECT head_hash, length FROM chains WHERE id = $1', [id]);
    expect(head).toEqual({ head_hash: c.hash, length: 3 });
  });

  it('serialises 50 concurrent appends into one contiguous chain', async () => {
    const id = newChainId();
    const appended = await Promise.all(
      Array.from({ length: 50 }, (_, i) => chains.append(id, { n: i })),
    );
    expect(appended.map((e) => e.seq).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    const entries = await chains.entries(id);
    expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    entries.forEach((e, i) =>
      expect(e.prev_hash).toBe(i === 0 ? GENESIS_HASH : entries[i - 1].hash),
    );
    // Each payload landed exactly once.
    expect(new Set(entries.map((e) => e.payload.n)).size).toBe(50);
    expect(await chains.verify(id)).toMatchObject({ valid: true, length: 50 });
  });

  it('starts a fresh chain in one statement and appends to a chain in two', async () => {
    const sql = SqlCounter.forCalls(t.db);
    const tx = t.get(Tx);
    try {
      const id = newChainId();
      const started = await sql.measureCall(() =>
        tx.run(() => chains.start(id, { type: 'payment.settled', amount_paise: 90_000 })),
      );
      expect(started.statements).toHaveLength(3); // BEGIN, chain + entry, COMMIT
      const first = started.result;
      expect(first).toMatchObject({ seq: 1, prev_hash: GENESIS_HASH });

      const appended = await sql.measureCall(() =>
        tx.run(() => chains.append(id, { type: 'refund.succeeded', amount_paise: 100 })),
      );
      expect(appended.statements).toHaveLength(4); // BEGIN, locked head, entry + head, COMMIT
      expect(appended.result).toMatchObject({ seq: 2, prev_hash: first.hash });

      expect(await chains.entries(id)).toEqual([first, appended.result]);
      const [head] = await t.db.query('SELECT head_hash, length FROM chains WHERE id = $1', [id]);
      expect(head).toEqual({ head_hash: appended.result.hash, length: 2 });
      expect(await chains.verify(id)).toMatchObject({ valid: true, length: 2 });

      // A chain that exists cannot be started again, and nothing of the attempt is kept.
      await expect(chains.start(id, { type: 'payment.settled' })).rejects.toThrow(/duplicate key/);
      expect(await chains.verify(id)).toMatchObject({ valid: true, length: 2 });
    } finally {
      sql.uninstall();
    }
  });

  it('serialises concurrent appends to a chain that was started, and a start rolls back with its transaction', async () => {
    const id = newChainId();
    await expect(
      t.get(Tx).run(async () => {
        await chains.start(id, { step: 'payment' });
        throw new Error('payment failed');
      }),
    ).rejects.toThrow('payment failed');
    expect(await t.db.query('SELECT 1 FROM chains WHERE id = $1', [id])).toEqual([]);
    expect(await chains.entries(id)).toEqual([]);

    await chains.start(id, { step: 'payment' });
    await Promise.all(Array.from({ length: 20 }, (_, i) => chains.append(id, { refund: i })));
    const entries = await chains.entries(id);
    expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
    expect(await chains.verify(id)).toMatchObject({ valid: true, length: 21 });
  });

  it("commits or rolls back with the caller's transaction", async () => {
    const id = newChainId();
    const tx = t.get(Tx);
    await expect(
      tx.run(async () => {
        await chains.append(id, { step: 'payment' });
        throw new Error('payment failed');
      }),
    ).rejects.toThrow('payment failed');
    expect(await chains.entries(id)).toEqual([]);
    expect(await t.db.query('SELECT 1 FROM chains WHERE id = $1', [id])).toEqual([]);

    await tx.run(async () => {
      await t.db.query('SELECT 1'); // some other business write
      await chains.append(id, { step: 'payment' });
    });
    expect(await chains.verify(id)).toMatchObject({ valid: true, length: 1 });
  });

  describe('tamper detection', () => {
    let id: string;
    beforeEach(async () => {
      id = newChainId();
      await appendN(id, 4);
    });

    it('reports an edited payload', async () => {
      await t.db.query(
        `UPDATE chain_entries SET payload = jsonb_set(payload, '{amount_paise}', '1') WHERE chain_id = $1 AND seq = 2`,
        [id],
      );
      expect(await chains.verify(id)).toEqual({
        valid: false,
        length: 4,
        first_bad_seq: 2,
        reason: 'hash: recomputed hash differs from the stored hash',
      });
    });

    it('reports an edited hash', async () => {
      await t.db.query(
        `UPDATE chain_entries SET hash = repeat('a', 64) WHERE chain_id = $1 AND seq = 3`,
        [id],
      );
      expect(await chains.verify(id)).toMatchObject({
        valid: false,
        first_bad_seq: 3,
        reason: expect.stringMatching(/^hash:/),
      });
    });

    it('reports a replaced jws', async () => {
      await t.db.query(
        `UPDATE chain_entries SET jws = (SELECT jws FROM chain_entries WHERE chain_id = $1 AND seq = 1)
         WHERE chain_id = $1 AND seq = 2`,
        [id],
      );
      expect(await chains.verify(id)).toMatchObject({
        valid: false,
        first_bad_seq: 2,
        reason: 'jws: signed payload does not equal the hash',
      });
    });

    it('reports a corrupted signature', async () => {
      await t.db.query(
        `UPDATE chain_entries SET jws = regexp_replace(jws, '\\.[^.]{8}', '.AAAAAAAA') WHERE chain_id = $1 AND seq = 4`,
        [id],
      );
      expect(await chains.verify(id)).toMatchObject({
        valid: false,
        first_bad_seq: 4,
        reason: expect.stringMatching(/^signature:/),
      });
    });

    it('reports a deleted entry in the middle', async () => {
      await t.db.query('DELETE FROM chain_entries WHERE chain_id = $1 AND seq = 2', [id]);
      expect(await chains.verify(id)).toMatchObject({
        valid: false,
        first_bad_seq: 2,
        reason: 'seq: expected 2, found 3',
      });
    });

    it('reports a deleted last entry against the chain head', async () => {
      await t.db.query('DELETE FROM chain_entries WHERE chain_id = $1 AND seq = 4', [id]);
      expect(await chains.verify(id)).toMatchObject({
        valid: false,
        length: 3,
        first_bad_seq: 4,
        reason: 'head: chain records 4 entries, found 3',
      });
    });
  });

  it('publishes the JWKS without auth, and entries verify offline against it', async () => {
    const id = newChainId();
    await appendN(id, 3);
    const res = await request(t.url).get('/.well-known/jwks.json');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const kid = t.get(SigningKeyService).kid;
    expect(res.body.keys).toContainEqual({
      kty: 'OKP',
      crv: 'Ed25519',
      x: expect.any(String),
      kid,
      alg: 'EdDSA',
      use: 'sig',
    });

    const doc = await request(t.url).get('/docs/openapi.json');
    expect(doc.body.paths['/.well-known/jwks.json'].get.operationId).toBe('getJwks');

    // What a buyer or seller holds: the entries as JSON and the published JWKS.
    const entries = JSON.parse(JSON.stringify(await chains.entries(id)));
    const { payload, protectedHeader } = await compactVerify(
      entries[0].jws,
      createLocalJWKSet(res.body),
    );
    expect(protectedHeader).toEqual({ alg: 'EdDSA', kid });
    expect(new TextDecoder().decode(payload)).toBe(entries[0].hash);
    expect(await verifyChain(entries, res.body)).toMatchObject({ valid: true, length: 3 });

    // The published snippet (docs/verify-receipt.mjs) agrees.
    const file = join(tmpdir(), `${id}.json`);
    await writeFile(file, JSON.stringify(entries));
    const run = promisify(execFile);
    const ok = await run(process.execPath, [
      'docs/verify-receipt.mjs',
      file,
      `${t.url}/.well-known/jwks.json`,
    ]);
    expect(ok.stdout).toContain('valid: 3 entries');
    entries[1].payload.amount_paise = 1;
    await writeFile(file, JSON.stringify(entries));
    await expect(
      run(process.execPath, ['docs/verify-receipt.mjs', file, `${t.url}/.well-known/jwks.json`]),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('INVALID at seq 2') });
  });

  it('refuses a chain spliced from two histories the service signed, at the prev_hash link', async () => {
    const id = newChainId();
    // History b: signed by the service, then rolled back, so the same chain_id can be written again.
    const rollback = new Error('roll back history b');
    const b: ChainEntryJson[] = [];
    await expect(
      t.get(Tx).run(async () => {
        for (const step of ['b1', 'b2', 'b3']) {
          b.push(await chains.append(id, { step, amount_paise: 999_00 }));
        }
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    // History a: the one the database keeps.
    for (const step of ['a1', 'a2', 'a3']) {
      await chains.append(id, { step, amount_paise: 100 });
    }
    const a = await chains.entries(id);
    const jwks = (await request(t.url).get('/.well-known/jwks.json')).body;
    expect(await verifyChain(b, jwks)).toMatchObject({ valid: true, length: 3 });
    expect(await chains.verify(id)).toMatchObject({ valid: true, length: 3 });

    // Every entry's own hash and signature are valid; only the link from a2 to b3 is not.
    const spliced = [a[0], a[1], b[2]];
    expect(await verifyChain(spliced, jwks)).toEqual({
      valid: false,
      length: 3,
      first_bad_seq: 3,
      reason: 'prev_hash: does not equal the hash of seq 2',
    });
    const file = join(tmpdir(), `${id}-spliced.json`);
    await writeFile(file, JSON.stringify(spliced));
    await expect(
      promisify(execFile)(process.execPath, [
        'docs/verify-receipt.mjs',
        file,
        `${t.url}/.well-known/jwks.json`,
      ]),
    ).rejects.toMatchObject({
      code: 1,
      stderr: 'INVALID at seq 3: prev_hash does not link to the previous hash\n',
    });
  });

  describe('signing key', () => {
    it('keeps the same kid when a new instance starts on the same database', async () => {
      const kid = t.get(SigningKeyService).kid;
      const again = await startApp();
      try {
        expect(again.get(SigningKeyService).kid).toBe(kid);
      } finally {
        await again.close();
      }
    });

    it('converges on one new key when two instances boot together with no usable key', async () => {
      const before: { kid: string }[] = await t.db.query('SELECT kid FROM signing_keys');
      await t.db.query('UPDATE signing_keys SET retired_at = now() WHERE retired_at IS NULL');
      const [a, b] = await Promise.all([startApp(), startApp()]);
      try {
        const kid = a.get(SigningKeyService).kid;
        expect(b.get(SigningKeyService).kid).toBe(kid);
        expect(before.map((r) => r.kid)).not.toContain(kid);
        const fresh = await t.db.query(
          'SELECT kid FROM signing_keys WHERE retired_at IS NULL AND private_key_pem IS NOT NULL',
        );
        expect(fresh).toEqual([{ kid }]);
        // Retired keys stay published, so entries they signed still verify.
        const jwks = await request(a.url).get('/.well-known/jwks.json');
        expect(jwks.body.keys.map((k: { kid: string }) => k.kid)).toEqual(
          expect.arrayContaining([...before.map((r) => r.kid), kid]),
        );
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });

    it('signs with SIGNING_PRIVATE_KEY when set, and publishes only its public part', async () => {
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      const envKid = await calculateJwkThumbprint(await exportJWK(publicKey));
      const id = newChainId();
      await chains.append(id, { by: 'stored key' });

      const withEnv = await startApp({ signingPrivateKeyPem: pem });
      try {
        expect(withEnv.get(SigningKeyService).kid).toBe(envKid);
        const entry = await withEnv.get(ChainService).append(id, { by: 'env key' });
        expect(entry.kid).toBe(envKid);
        expect(entry.seq).toBe(2);
        const jwks = await request(withEnv.url).get('/.well-known/jwks.json');
        expect(jwks.body.keys.map((k: { kid: string }) => k.kid)).toEqual(
          expect.arrayContaining([envKid, t.get(SigningKeyService).kid]),
        );
        // A chain signed by both keys verifies, here and offline.
        expect(await chains.verify(id)).toMatchObject({ valid: true, length: 2 });
        expect(await verifyChain(await chains.entries(id), jwks.body)).toMatchObject({
          valid: true,
        });
        const [row] = await t.db.query('SELECT private_key_pem FROM signing_keys WHERE kid = $1', [
          envKid,
        ]);
        expect(row).toEqual({ private_key_pem: null });
      } finally {
        await withEnv.close();
      }

      // Without the env var, an instance goes back to a stored key (it cannot sign with envKid).
      const plain = await startApp();
      try {
        expect(plain.get(SigningKeyService).kid).not.toBe(envKid);
      } finally {
        await plain.close();
      }
    });

    it('refuses a SIGNING_PRIVATE_KEY that is not Ed25519', async () => {
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
      const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      // Constructed by hand: a failed boot through startApp would leave its connections open.
      const service = new SigningKeyService(
        { ...t.config, signingPrivateKeyPem: pem },
        t.get(SigningKeyRepository),
        t.get(Tx),
        t.clock,
      );
      await expect(service.onModuleInit()).rejects.toThrow(/must be an Ed25519 key/);
    });
  });
});
