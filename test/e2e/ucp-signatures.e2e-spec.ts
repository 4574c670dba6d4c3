import { generateKeyPairSync, randomUUID } from 'node:crypto';

import { createSigner, httpbis, type Request as TheirRequest } from 'http-message-signatures';

import { contentDigest, signMessage } from '../../src/common/signing/http-message-signatures';
import { RetentionJob } from '../../src/retention/retention.job';
import { startApp, TestApp } from '../support/app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';
import request from '../support/ucp-contract';
import {
  PlatformHost,
  platformProfile,
  PlatformSigner,
  platformSigner,
  startPlatformHost,
} from '../support/ucp-platform';
import { expectValidUcp } from '../support/ucp-schema';

/**
 * Inbound RFC 9421 request signatures on /ucp (docs/ucp.md "Request signatures"): a platform
 * whose profile publishes signing_keys must sign with one of them (Ed25519 or P-256), covering
 * what UCP's REST binding lists, with created, expires and a nonce used once; any refusal is a
 * UCP error and writes nothing. A platform without signing_keys is not asked to sign.
 */

const ED = platformSigner('platform-ed-2026', 'ed25519');
const P256 = platformSigner('platform-p256-2026', 'ecdsa-p256-sha256');
const P384_JWK = {
  ...generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({ format: 'jwk' }),
  kid: 'platform-p384',
};
const STRANGER = platformSigner('platform-ed-2026', 'ed25519'); // the right keyid, another key
/** The merchant protocol key's registered key (its keyid is the protocol key's id, set below). */
const PROTOCOL_KEY = platformSigner('set-later', 'ecdsa-p256-sha256');

const BODY_COMPONENTS = [
  '@method',
  '@authority',
  '@path',
  'ucp-agent',
  'idempotency-key',
  'content-digest',
  'content-type',
];

describe('UCP request signatures (RFC 9421)', () => {
  let t: TestApp;
  let host: PlatformHost;
  let seller: SeededWorkspace;
  /** A seller whose merchant protocol key has a registered public key (PROTOCOL_KEY). */
  let keyed: SeededWorkspace;

  beforeAll(async () => {
    t = await startApp();
    host = await startPlatformHost({
      '/signed': {
        ...platformProfile(),
        signing_keys: [ED.publicJwk, P256.publicJwk, P384_JWK],
      },
      '/unsigned': platformProfile(),
    });
    seller = await seedWorkspace(t);
    keyed = await seedWorkspace(t, { merchantPublicKey: PROTOCOL_KEY.publicJwk });
    for (const ws of [seller, keyed]) {
      await request(t.url)
        .put(`/v1/pay/agents/${ws.seller.id}/listing`)
        .set('Authorization', `Bearer ${ws.seller.credential}`)
        .send({
          listed: true,
          offers: [
            {
              sku: 'sku_tea_1kg',
              name: 'Assam tea 1 kg',
              unit_paise: 45_000,
              category: 'food.tea',
            },
          ],
        })
        .expect(200);
    }
  });
  afterAll(async () => {
    await host.close();
    await t.close();
  });

  const count = async (sql: string, params: unknown[] = []): Promise<number> =>
    Number(
      (await t.db.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM (${sql}) x`, params))[0].n,
    );
  const sessions = () => count('SELECT 1 FROM checkout_sessions');
  const nonces = () => count('SELECT 1 FROM signature_nonces');
  const idempotencyRecords = () => count('SELECT 1 FROM idempotency_records');

  const createBody = () =>
    JSON.stringify({ line_items: [{ item: { id: 'sku_tea_1kg' }, quantity: 1 }] });

  interface Draft {
    method: 'POST' | 'GET';
    path: string;
    headers: Record<string, string>;
    body?: string;
  }

  /** An unsigned create (or GET) request from the platform at `profile`. */
  function draft(
    profile = '/signed',
    method: 'POST' | 'GET' = 'POST',
    path?: string,
    merchantKey = seller.merchantKey,
  ): Draft {
    const headers: Record<string, string> = {
      authorization: `Bearer ${merchantKey}`,
      'ucp-agent': host.agent(profile),
    };
    if (method === 'GET') {
      return { method, path: path ?? '/ucp/checkout-sessions/x', headers };
    }
    headers['idempotency-key'] = randomUUID();
    headers['content-type'] = 'application/json';
    return { method, path: path ?? '/ucp/checkout-sessions', headers, body: createBody() };
  }

  /** Signs the draft with our signMessage (times relative to the service clock). */
  function sign(
    d: Draft,
    s: PlatformSigner,
    opts: {
      created?: number;
      expires?: number;
      nonce?: string | null;
      components?: string[];
      url?: string;
    } = {},
  ): Draft {
    const now = t.clock.now().getTime();
    const created = new Date(now + (opts.created ?? 0) * 1000);
    const components =
      opts.components ??
      (d.body === undefined ? ['@method', '@authority', '@path', 'ucp-agent'] : BODY_COMPONENTS);
    const added = signMessage(
      { method: d.method, url: opts.url ?? `${t.url}${d.path}`, headers: d.headers, body: d.body },
      {
        keyid: s.keyid,
        key: s.privateKey,
        alg: s.alg,
        components,
        created,
        expires: new Date(created.getTime() + (opts.expires ?? 120) * 1000),
        ...(opts.nonce === null ? {} : { nonce: opts.nonce ?? randomUUID() }),
        algParameter: false,
      },
    );
    const headers: Record<string, string> = {
      ...d.headers,
      'signature-input': added['Signature-Input'],
      signature: added.Signature,
    };
    if (added['Content-Digest']) {
      headers['content-digest'] = added['Content-Digest'];
    }
    return { ...d, headers };
  }

  const send = (d: Draft) => {
    const r = d.method === 'GET' ? request(t.url).get(d.path) : request(t.url).post(d.path);
    r.set(d.headers);
    return d.body === undefined ? r : r.send(d.body);
  };

  function expectUcpError(body: Record<string, unknown>, code: string): void {
    expectValidUcp('error', body);
    expect(body.ucp).toMatchObject({ version: '2026-04-08', status: 'error' });
    expect(body.messages).toEqual([expect.objectContaining({ type: 'error', code })]);
  }

  describe('accepted', () => {
    it.each([
      ['Ed25519', ED],
      ['P-256', P256],
    ])('a create signed with the profile %s key', async (_name, s) => {
      const before = { sessions: await sessions(), nonces: await nonces() };
      const res = await send(sign(draft(), s)).expect(201);
      expect(res.body.status).toBeDefined();
      expect(await sessions()).toBe(before.sessions + 1);
      expect(await nonces()).toBe(before.nonces + 1);
    });

    it('a GET signed without a body (no digest needed) and a complete URL (@target-uri)', async () => {
      const created = await send(sign(draft(), P256)).expect(201);
      const d = draft('/signed', 'GET', `/ucp/checkout-sessions/${created.body.id as string}`);
      await send(sign(d, P256)).expect(200);
      await send(sign(d, ED, { components: ['@method', '@target-uri', 'ucp-agent'] })).expect(200);
    });

    it('a signature made by the independent http-message-signatures package (P-256)', async () => {
      const d = draft();
      const url = `${t.url}${d.path}`;
      const theirs: TheirRequest = {
        method: 'POST',
        url,
        headers: { ...d.headers, 'content-digest': contentDigest(d.body as string) },
      };
      const now = t.clock.now();
      const signed = await httpbis.signMessage(
        {
          key: createSigner(P256.privateKey, 'ecdsa-p256-sha256', P256.keyid),
          fields: BODY_COMPONENTS,
          params: ['created', 'expires', 'nonce', 'keyid'],
          paramValues: {
            created: now,
            expires: new Date(now.getTime() + 60_000),
            nonce: randomUUID(),
          },
        },
        theirs,
      );
      const before = await sessions();
      await send({ ...d, headers: signed.headers as Record<string, string> }).expect(201);
      expect(await sessions()).toBe(before + 1);
    });

    it('a platform without signing_keys is not asked to sign', async () => {
      const before = await sessions();
      await send(draft('/unsigned')).expect(201);
      expect(await sessions()).toBe(before + 1);
    });
  });

  describe('refused, with nothing written', () => {
    async function expectRefused(d: Draft, status: number, code: string): Promise<void> {
      const before = {
        sessions: await sessions(),
        nonces: await nonces(),
        records: await idempotencyRecords(),
      };
      const res = await send(d).expect(status);
      expectUcpError(res.body, code);
      if (status === 401) {
        expect(res.headers['www-authenticate']).toBe('Bearer realm="ucp"');
      }
      expect(await sessions()).toBe(before.sessions);
      expect(await nonces()).toBe(before.nonces);
      expect(await idempotencyRecords()).toBe(before.records);
    }

    it('no signature: 401 signature_missing', async () => {
      await expectRefused(draft(), 401, 'signature_missing');
    });

    it('a tampered body (Content-Digest of the signed one): 400 digest_mismatch', async () => {
      const d = sign(draft(), ED);
      await expectRefused(
        { ...d, body: d.body!.replace('"quantity":1', '"quantity":9') },
        400,
        'digest_mismatch',
      );
    });

    it('a tampered body with its own Content-Digest: 401 signature_invalid', async () => {
      const d = sign(draft(), P256);
      const body = d.body!.replace('"quantity":1', '"quantity":9');
      await expectRefused(
        { ...d, body, headers: { ...d.headers, 'content-digest': contentDigest(body) } },
        401,
        'signature_invalid',
      );
    });

    it('a tampered covered header (Idempotency-Key): 401 signature_invalid', async () => {
      const d = sign(draft(), ED);
      await expectRefused(
        { ...d, headers: { ...d.headers, 'idempotency-key': randomUUID() } },
        401,
        'signature_invalid',
      );
    });

    it('a signature for another host (@authority): 401 signature_invalid', async () => {
      const d = sign(draft(), ED, { url: 'https://other-merchant.example/ucp/checkout-sessions' });
      await expectRefused(d, 401, 'signature_invalid');
    });

    it('expired: 401 signature_invalid', async () => {
      await expectRefused(
        sign(draft(), ED, { created: -400, expires: 200 }),
        401,
        'signature_invalid',
      );
      await expectRefused(
        sign(draft(), P256, { created: -200, expires: 10 }),
        401,
        'signature_invalid',
      );
    });

    it('created in the future: 401 signature_invalid', async () => {
      await expectRefused(sign(draft(), ED, { created: 600 }), 401, 'signature_invalid');
    });

    it('a replayed nonce, as is or signed afresh: 401 signature_invalid', async () => {
      const nonce = randomUUID();
      const first = sign(draft(), ED, { nonce });
      await send(first).expect(201);
      await expectRefused(first, 401, 'signature_invalid');
      await expectRefused(sign(draft(), ED, { nonce }), 401, 'signature_invalid');
    });

    it('no nonce: 401 signature_invalid', async () => {
      await expectRefused(sign(draft(), ED, { nonce: null }), 401, 'signature_invalid');
    });

    it('an unknown keyid: 401 key_not_found', async () => {
      await expectRefused(sign(draft(), { ...ED, keyid: 'not-published' }), 401, 'key_not_found');
    });

    it('the right keyid signed with another key: 401 signature_invalid', async () => {
      await expectRefused(sign(draft(), STRANGER), 401, 'signature_invalid');
    });

    it('a key of an algorithm we do not verify (P-384): 400 algorithm_unsupported', async () => {
      await expectRefused(
        sign(draft(), { ...ED, keyid: 'platform-p384' }),
        400,
        'algorithm_unsupported',
      );
    });

    it('components UCP requires left out (ucp-agent, idempotency-key, content-type): 401', async () => {
      for (const left of ['ucp-agent', 'idempotency-key', 'content-type']) {
        await expectRefused(
          sign(draft(), P256, { components: BODY_COMPONENTS.filter((c) => c !== left) }),
          401,
          'signature_invalid',
        );
      }
    });

    it('a GET without a signature: 401 signature_missing', async () => {
      await expectRefused(draft('/signed', 'GET'), 401, 'signature_missing');
    });
  });

  describe('a merchant protocol key with a registered public key', () => {
    const asKeyed = (profile: string) => draft(profile, 'POST', undefined, keyed.merchantKey);
    const protocolKey = (): PlatformSigner => ({ ...PROTOCOL_KEY, keyid: keyed.merchantKeyId });

    /** Both signatures on one request: each header's members joined with ", ". */
    function signTwice(d: Draft, first: PlatformSigner, second: PlatformSigner): Draft {
      const a = sign(d, first);
      const b = sign(d, second);
      const relabel = (v: string) => v.replace(/^sig1=/, 'sig2=');
      return {
        ...d,
        headers: {
          ...a.headers,
          'signature-input': `${a.headers['signature-input']}, ${relabel(b.headers['signature-input'])}`,
          signature: `${a.headers.signature}, ${relabel(b.headers.signature)}`,
        },
      };
    }

    it('signs with RFC 9421 under keyid = the key id when it sends Signature-Input', async () => {
      const before = await sessions();
      await send(sign(asKeyed('/unsigned'), protocolKey())).expect(201);
      expect(await sessions()).toBe(before + 1);
    });

    it('and signs next to the platform when the profile has signing_keys', async () => {
      const before = await sessions();
      await send(signTwice(asKeyed('/signed'), protocolKey(), ED)).expect(201);
      await send(signTwice(asKeyed('/signed'), P256, protocolKey())).expect(201);
      expect(await sessions()).toBe(before + 2);
    });

    it.each([
      ['only the platform signature', '/signed', () => sign(asKeyed('/signed'), ED)],
      ['a signature under another keyid', '/unsigned', () => sign(asKeyed('/unsigned'), ED)],
    ])('refuses %s: 401 signature_missing, nothing written', async (_n, _p, build) => {
      const before = { sessions: await sessions(), records: await idempotencyRecords() };
      const res = await send(build()).expect(401);
      expectUcpError(res.body, 'signature_missing');
      expect(await sessions()).toBe(before.sessions);
      expect(await idempotencyRecords()).toBe(before.records);
    });

    it('refuses its own signature without the platform one: 401 key_not_found', async () => {
      const before = await sessions();
      const res = await send(sign(asKeyed('/signed'), protocolKey())).expect(401);
      expectUcpError(res.body, 'key_not_found');
      expect(await sessions()).toBe(before);
    });
  });

  it('the retention sweep deletes nonces once their signature has expired', async () => {
    expect(await nonces()).toBeGreaterThan(0);
    const job = t.get(RetentionJob);
    await job.run();
    expect(await nonces()).toBeGreaterThan(0); // none expired yet
    t.clock.advance(10 * 60_000);
    for (let i = 0; i < 20 && (await nonces()) > 0; i++) {
      await job.run();
    }
    expect(await nonces()).toBe(0);
  });
});
