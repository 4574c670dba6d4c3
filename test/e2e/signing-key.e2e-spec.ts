import { execFile } from 'node:child_process';
import { createPrivateKey, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { promisify } from 'node:util';

import { calculateJwkThumbprint, compactVerify, exportJWK, importJWK } from 'jose';

import { ChainService } from '../../src/chains/chain.service';
import { SigningKeyRepository } from '../../src/chains/signing-key.repository';
import { SigningKeyService } from '../../src/chains/signing-key.service';
import { isSealed, openSealed } from '../../src/common/crypto/sealed';
import { randomToken } from '../../src/common/ids';
import { AppConfig } from '../../src/config/app.config';
import { Tx } from '../../src/database/tx';
import { startApp, TestApp, testDatabaseUrl } from '../support/app';

const run = promisify(execFile);
const SEALED_CHK = 'signing_keys_private_key_sealed_chk';

/** Every byte of the database as text: pg_dump when installed, else every row of every table. */
async function dumpDatabase(t: TestApp): Promise<string> {
  try {
    const { stdout } = await run('pg_dump', ['--no-owner', '--dbname', await testDatabaseUrl()], {
      maxBuffer: 256 * 1024 * 1024,
    });
    return stdout;
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'ENOENT') {
      throw err;
    }
  }
  const tables: { name: string }[] = await t.db.query(
    `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'`,
  );
  const parts: string[] = [];
  for (const { name } of tables) {
    const rows: { row: string }[] = await t.db.query(
      `SELECT to_jsonb(x)::text AS row FROM "${name}" x`,
    );
    parts.push(...rows.map((r) => r.row));
  }
  return parts.join('\n');
}

/** The forms a private Ed25519 key could leak in: PEM, DER, raw seed (hex, base64, base64url = JWK d). */
async function privateKeyForms(pem: string): Promise<string[]> {
  const key = createPrivateKey(pem);
  const der = key.export({ type: 'pkcs8', format: 'der' });
  const { d } = await exportJWK(key);
  const seed = Buffer.from(d!, 'base64url');
  return [
    'PRIVATE KEY',
    pem.split('\n')[1],
    der.toString('base64'),
    der.toString('hex'),
    seed.toString('hex'),
    seed.toString('base64').replace(/=+$/, ''),
    d!,
  ];
}

describe('signing key at rest', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  const rowOf = async (kid: string): Promise<{ private_key_pem: string | null }> =>
    (await t.db.query('SELECT private_key_pem FROM signing_keys WHERE kid = $1', [kid]))[0];

  /** A service built by hand: a failed boot through startApp would leave its connections open. */
  const bootService = (config: Partial<AppConfig>) =>
    new SigningKeyService(
      { ...t.config, ...config },
      t.get(SigningKeyRepository),
      t.get(Tx),
      t.clock,
    );

  it('stores a generated key sealed: the database dump holds no private key bytes', async () => {
    const kid = t.get(SigningKeyService).kid;
    const { private_key_pem: stored } = await rowOf(kid);
    expect(stored).not.toBeNull();
    expect(isSealed(stored!)).toBe(true);
    const pem = openSealed(t.config.signingKeyEncryptionKey!, stored!, `signing_keys:${kid}`);
    // It is the key that signs (same public half as the kid), not some other key.
    const jwk = await exportJWK(createPublicKey(createPrivateKey(pem)));
    expect(await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: jwk.x! })).toBe(kid);
    // Some signed data in the database too, so the dump is not trivially empty.
    await t.get(ChainService).append(`chain_test_${randomToken(8)}`, { amount_paise: 100 });

    const dump = await dumpDatabase(t);
    expect(dump).toContain(stored!);
    for (const form of await privateKeyForms(pem)) {
      expect(dump).not.toContain(form);
    }
  });

  it('signs with the same kid after a restart with the same encryption key', async () => {
    const kid = t.get(SigningKeyService).kid;
    const again = await startApp({
      signingKeyEncryptionKey: Buffer.from(t.config.signingKeyEncryptionKey!),
    });
    try {
      expect(again.get(SigningKeyService).kid).toBe(kid);
      const { jws } = await again.get(SigningKeyService).sign('a'.repeat(64));
      const { keys } = await again.get(SigningKeyService).jwks();
      const published = keys.find((k) => k.kid === kid)!;
      const { payload, protectedHeader } = await compactVerify(
        jws,
        await importJWK({ ...published }, 'EdDSA'),
      );
      expect(protectedHeader.kid).toBe(kid);
      expect(new TextDecoder().decode(payload)).toBe('a'.repeat(64));
    } finally {
      await again.close();
    }
  });

  it('refuses to boot when the encryption key is not the one the stored key was sealed with', async () => {
    const kid = t.get(SigningKeyService).kid;
    await expect(
      bootService({ signingKeyEncryptionKey: Buffer.alloc(32, 9) }).onModuleInit(),
    ).rejects.toThrow(
      new RegExp(
        `stored signing key ${kid} does not open with this key.*SIGNING_KEY_ENCRYPTION_KEY`,
      ),
    );
    // Nothing was replaced: the sealed key is still the one in use.
    expect(
      (await t.db.query('SELECT count(*)::int AS n FROM signing_keys WHERE retired_at IS NULL'))[0]
        .n,
    ).toBe(1);
  });

  it('refuses, at the database, a private key written in plaintext', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    await expect(
      t.db.query(
        `INSERT INTO signing_keys (kid, alg, private_key_pem, public_jwk, created_at)
         VALUES ($1, 'EdDSA', $2, '{}'::jsonb, now())`,
        [`kid_${randomToken(8)}`, pem],
      ),
    ).rejects.toMatchObject({ code: '23514', constraint: SEALED_CHK });
  });

  describe('a key stored in plaintext by an earlier version', () => {
    let legacyKid: string;
    let legacyPem: string;

    beforeEach(async () => {
      // What an earlier version left behind: the CHECK did not exist and the PEM was stored as is.
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      legacyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      const jwk = await exportJWK(publicKey);
      const publicJwk = { kty: 'OKP', crv: 'Ed25519', x: jwk.x! };
      legacyKid = await calculateJwkThumbprint(publicJwk);
      await t.db.query(`ALTER TABLE signing_keys DROP CONSTRAINT ${SEALED_CHK}`);
      await t.db.query('UPDATE signing_keys SET retired_at = now() WHERE retired_at IS NULL');
      await t.db.query(
        `INSERT INTO signing_keys (kid, alg, private_key_pem, public_jwk, created_at)
         VALUES ($1, 'EdDSA', $2, $3, now() + interval '1 second')`,
        [legacyKid, legacyPem, publicJwk],
      );
    });

    afterEach(async () => {
      // Leaves no plaintext behind for the next test, whatever happened.
      await t.db.query(
        `UPDATE signing_keys SET private_key_pem = NULL, retired_at = now() WHERE private_key_pem NOT LIKE 'v1.%'`,
      );
      await t.db.query(
        `ALTER TABLE signing_keys ADD CONSTRAINT ${SEALED_CHK}
           CHECK (private_key_pem IS NULL OR private_key_pem LIKE 'v1.%') NOT VALID`,
      );
    });

    it('is encrypted in place on boot and keeps signing with the same kid', async () => {
      const app = await startApp();
      try {
        expect(app.get(SigningKeyService).kid).toBe(legacyKid);
        const { private_key_pem: stored } = await rowOf(legacyKid);
        expect(isSealed(stored!)).toBe(true);
        expect(
          openSealed(app.config.signingKeyEncryptionKey!, stored!, `signing_keys:${legacyKid}`),
        ).toBe(legacyPem);
        const { jws } = await app.get(SigningKeyService).sign('b'.repeat(64));
        const [header, payload, sig] = jws.split('.');
        expect(
          verify(
            null,
            Buffer.from(`${header}.${payload}`),
            createPublicKey(createPrivateKey(legacyPem)),
            Buffer.from(sig, 'base64url'),
          ),
        ).toBe(true);
      } finally {
        await app.close();
      }
      // Every row now satisfies the CHECK the migration could only add NOT VALID.
      await t.db.query(`ALTER TABLE signing_keys ADD CONSTRAINT ${SEALED_CHK}_probe
        CHECK (private_key_pem IS NULL OR private_key_pem LIKE 'v1.%')`);
      await t.db.query(`ALTER TABLE signing_keys DROP CONSTRAINT ${SEALED_CHK}_probe`);
      const dump = await dumpDatabase(t);
      for (const form of await privateKeyForms(legacyPem)) {
        expect(dump).not.toContain(form);
      }
    });

    it('is encrypted on boot with SIGNING_PRIVATE_KEY set too', async () => {
      const { privateKey } = generateKeyPairSync('ed25519');
      const envPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      await bootService({ signingPrivateKeyPem: envPem }).onModuleInit();
      expect(isSealed((await rowOf(legacyKid)).private_key_pem!)).toBe(true);
    });

    it('stops a live boot without SIGNING_KEY_ENCRYPTION_KEY, saying what to set', async () => {
      const { privateKey } = generateKeyPairSync('ed25519');
      const envPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      await expect(
        bootService({
          mode: 'live',
          signingPrivateKeyPem: envPem,
          signingKeyEncryptionKey: null,
        }).onModuleInit(),
      ).rejects.toThrow(/1 private key\(s\) stored in plaintext .*set SIGNING_KEY_ENCRYPTION_KEY/);
      expect((await rowOf(legacyKid)).private_key_pem).toBe(legacyPem);
      // The dump check above would have caught this one.
      const dump = await dumpDatabase(t);
      expect(
        (await privateKeyForms(legacyPem)).filter((f) => dump.includes(f)).length,
      ).toBeGreaterThan(0);
    });
  });
});
