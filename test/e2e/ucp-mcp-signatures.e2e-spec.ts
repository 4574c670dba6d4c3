import { randomUUID } from 'node:crypto';

import request from 'supertest';

import { contentDigest, signMessage } from '../../src/common/signing/http-message-signatures';
import { startApp, TestApp } from '../support/app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';
import {
  PlatformHost,
  platformProfile,
  PlatformSigner,
  platformSigner,
  startPlatformHost,
} from '../support/ucp-platform';

/**
 * RFC 9421 request signatures on UCP's MCP binding (/mcp?protocol=ucp, docs/ucp.md "Request
 * signatures" and "MCP binding"): the JSON-RPC POST is the signed HTTP request (raw body, public
 * URL with ?protocol=ucp), verified with the signing_keys of the profile named in
 * meta["ucp-agent"].profile before any tool runs. A refusal is a JSON-RPC -32000 error and writes
 * nothing; a platform without signing_keys is not asked to sign.
 */

const ED = platformSigner('platform-ed-2026', 'ed25519');
const P256 = platformSigner('platform-p256-2026', 'ecdsa-p256-sha256');
const STRANGER = platformSigner('platform-ed-2026', 'ed25519'); // the right keyid, another key

const COMPONENTS = ['@method', '@authority', '@path', '@query', 'content-digest', 'content-type'];
const PATH = '/mcp?protocol=ucp';

type Json = Record<string, unknown>;

interface RpcReply {
  jsonrpc: string;
  id: number;
  result?: Json & { structuredContent?: Json; isError?: boolean };
  error?: { code: number; message: string; data: { code: string; content: string } };
}

describe('UCP request signatures over MCP (/mcp?protocol=ucp)', () => {
  let t: TestApp;
  let host: PlatformHost;
  let seller: SeededWorkspace;

  beforeAll(async () => {
    t = await startApp();
    host = await startPlatformHost({
      '/signed': { ...platformProfile(), signing_keys: [ED.publicJwk, P256.publicJwk] },
      '/unsigned': platformProfile(),
    });
    seller = await seedWorkspace(t);
    await request(t.url)
      .put(`/v1/pay/agents/${seller.seller.id}/listing`)
      .set('Authorization', `Bearer ${seller.seller.credential}`)
      .send({
        listed: true,
        offers: [
          { sku: 'sku_tea_1kg', name: 'Assam tea 1 kg', unit_paise: 45_000, category: 'food.tea' },
        ],
      })
      .expect(200);
  });
  afterAll(async () => {
    await host.close();
    await t.close();
  });

  const count = async (sql: string): Promise<number> =>
    Number((await t.db.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM (${sql}) x`))[0].n);
  const sessions = () => count('SELECT 1 FROM checkout_sessions');
  const nonces = () => count('SELECT 1 FROM signature_nonces');
  const records = () => count('SELECT 1 FROM idempotency_records');

  const createCall = (profile: string, id = 1, key: string = randomUUID()): Json => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'create_checkout',
      arguments: {
        meta: { 'ucp-agent': { profile: host.url(profile) }, 'idempotency-key': key },
        checkout: { line_items: [{ item: { id: 'sku_tea_1kg' }, quantity: 1 }] },
      },
    },
  });

  interface Draft {
    path: string;
    headers: Record<string, string>;
    body: string;
  }

  const draft = (message: Json | Json[], path = PATH): Draft => ({
    path,
    headers: {
      authorization: `Bearer ${seller.merchantKey}`,
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
    },
    body: JSON.stringify(message),
  });

  function sign(
    d: Draft,
    s: PlatformSigner,
    opts: { nonce?: string; url?: string; components?: string[] } = {},
  ): Draft {
    const created = t.clock.now();
    const added = signMessage(
      { method: 'POST', url: opts.url ?? `${t.url}${d.path}`, headers: d.headers, body: d.body },
      {
        keyid: s.keyid,
        key: s.privateKey,
        alg: s.alg,
        components: opts.components ?? COMPONENTS,
        created,
        expires: new Date(created.getTime() + 120_000),
        nonce: opts.nonce ?? randomUUID(),
        algParameter: false,
      },
    );
    return {
      ...d,
      headers: {
        ...d.headers,
        'signature-input': added['Signature-Input'],
        signature: added.Signature,
        'content-digest': added['Content-Digest'] as string,
      },
    };
  }

  const send = async (d: Draft) => {
    const res = await request(t.url).post(d.path).set(d.headers).send(d.body);
    expect(res.status).toBe(200);
    return res.body as RpcReply | RpcReply[];
  };

  const accepted = (reply: RpcReply | RpcReply[]): Json => {
    const r = reply as RpcReply;
    expect(r.error).toBeUndefined();
    expect(r.result?.isError).toBeFalsy();
    return r.result!.structuredContent!;
  };

  async function expectRefused(d: Draft, code: string): Promise<void> {
    const before = { sessions: await sessions(), nonces: await nonces(), records: await records() };
    const reply = (await send(d)) as RpcReply;
    expect(reply.result).toBeUndefined();
    expect(reply.error).toMatchObject({ code: -32000, data: { code } });
    expect(await sessions()).toBe(before.sessions);
    expect(await nonces()).toBe(before.nonces);
    expect(await records()).toBe(before.records);
  }

  describe('accepted', () => {
    it.each([
      ['Ed25519', ED],
      ['P-256', P256],
    ])('a create_checkout whose HTTP request is signed with the profile %s key', async (_n, s) => {
      const before = { sessions: await sessions(), nonces: await nonces() };
      const checkout = accepted(await send(sign(draft(createCall('/signed')), s)));
      expect(checkout.id).toMatch(/^cs_/);
      expect(await sessions()).toBe(before.sessions + 1);
      expect(await nonces()).toBe(before.nonces + 1);
    });

    it('a batch of two calls from the same platform: one signature, one nonce, both run', async () => {
      const before = { sessions: await sessions(), nonces: await nonces() };
      const replies = (await send(
        sign(draft([createCall('/signed', 1), createCall('/signed', 2)]), ED),
      )) as RpcReply[];
      expect(replies).toHaveLength(2);
      replies.forEach((r) => accepted(r));
      expect(await sessions()).toBe(before.sessions + 2);
      expect(await nonces()).toBe(before.nonces + 1);
    });

    it('a platform without signing_keys is not asked to sign', async () => {
      const before = await sessions();
      accepted(await send(draft(createCall('/unsigned'))));
      expect(await sessions()).toBe(before + 1);
    });

    it('tools/list needs no signature (no tool runs)', async () => {
      const reply = (await send(
        draft({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      )) as RpcReply;
      expect((reply.result?.tools as unknown[]).length).toBe(5);
    });
  });

  describe('refused with JSON-RPC -32000, nothing written', () => {
    it('unsigned: signature_missing', async () => {
      await expectRefused(draft(createCall('/signed')), 'signature_missing');
    });

    it('unsigned get_checkout of an existing session: signature_missing', async () => {
      const created = accepted(await send(sign(draft(createCall('/signed')), ED)));
      const reply = (await send(
        draft({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'get_checkout',
            arguments: { meta: { 'ucp-agent': { profile: host.url('/signed') } }, id: created.id },
          },
        }),
      )) as RpcReply;
      expect(reply.error).toMatchObject({ code: -32000, data: { code: 'signature_missing' } });
    });

    it('a tampered body (Content-Digest of the signed one): digest_mismatch', async () => {
      const d = sign(draft(createCall('/signed')), ED);
      await expectRefused(
        { ...d, body: d.body.replace('"quantity":1', '"quantity":9') },
        'digest_mismatch',
      );
    });

    it('a tampered body with its own Content-Digest: signature_invalid', async () => {
      const d = sign(draft(createCall('/signed')), P256);
      const body = d.body.replace('"quantity":1', '"quantity":9');
      await expectRefused(
        { ...d, body, headers: { ...d.headers, 'content-digest': contentDigest(body) } },
        'signature_invalid',
      );
    });

    it('signed for plain /mcp (without ?protocol=ucp): signature_invalid', async () => {
      const d = sign(draft(createCall('/signed')), ED, {
        url: `${t.url}/mcp`,
        components: ['@method', '@authority', '@path', 'content-digest', 'content-type'],
      });
      await expectRefused(d, 'signature_invalid');
    });

    it('@query not covered: signature_invalid', async () => {
      const d = sign(draft(createCall('/signed')), ED, {
        components: ['@method', '@authority', '@path', 'content-digest', 'content-type'],
      });
      await expectRefused(d, 'signature_invalid');
    });

    it('the right keyid, another key: signature_invalid', async () => {
      await expectRefused(sign(draft(createCall('/signed')), STRANGER), 'signature_invalid');
    });

    it('a keyid the profile does not publish: key_not_found', async () => {
      await expectRefused(
        sign(draft(createCall('/signed')), { ...ED, keyid: 'not-published' }),
        'key_not_found',
      );
    });

    it('replayed: the same signed request again is refused and runs nothing', async () => {
      const d = sign(draft(createCall('/signed')), P256);
      accepted(await send(d));
      await expectRefused(d, 'signature_invalid');
      // A fresh signature with the same nonce is refused as well.
      const again = sign(draft(createCall('/signed')), P256, {
        nonce: /nonce="([^"]+)"/.exec(d.headers['signature-input'])![1],
      });
      await expectRefused(again, 'signature_invalid');
    });
  });
});
