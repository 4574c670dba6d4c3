import { randomUUID } from 'node:crypto';

import request from 'supertest';

import { CredentialCache } from '../../src/common/auth/credential-cache';
import { sha256Hex } from '../../src/common/crypto/secrets';
import { PgListener } from '../../src/common/sweeper/pg-listener';
import { startApp, TestApp } from '../support/app';
import { acpHeaders, keyPair, SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * Credentials are cached in process (CredentialCache) and a revocation still holds on the very
 * next request, on every instance: two instances of the app on one database and one Redis (the
 * same queue prefix), a credential used on B (so B has it cached), revoked or changed through A,
 * refused by B at once. Also: the revoking instance itself, the fail-safe when B's LISTEN
 * connection is down (no caching), and what the cache is worth (a credential changed behind the
 * service's back stays usable on B only until its entry expires).
 */

const TTL_MS = 1500;

let a: TestApp;
let b: TestApp;
let ws: SeededWorkspace;

beforeAll(async () => {
  a = await startApp({ credentialCacheTtlMs: TTL_MS });
  b = await startApp({ credentialCacheTtlMs: TTL_MS, queuePrefix: a.config.queuePrefix });
  ws = await seedWorkspace(a);
});
afterAll(async () => {
  await b.close();
  await a.close();
});

const v1 = (key: string) => ({ Authorization: `Bearer ${key}` });
const cached = (t: TestApp, secret: string) => t.get(CredentialCache).get(sha256Hex(secret));

/** A merchant key is accepted on this route (404: no such session) or refused (401). */
const asMerchant = (t: TestApp, key: string) =>
  request(t.url).get('/acp/checkout_sessions/cs_unknown').set(acpHeaders(key));

async function newMerchantKey(): Promise<{ id: string; key: string }> {
  const res = await request(a.url)
    .post('/v1/pay/protocol-keys')
    .set({ ...v1(ws.apiKey), 'Idempotency-Key': randomUUID() })
    .send({ role: 'merchant', agent_id: ws.seller.id });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, key: res.body.key as string };
}

describe('two instances sharing one database', () => {
  it('both listen, so both cache', () => {
    expect(a.get(PgListener).isUp).toBe(true);
    expect(b.get(PgListener).isUp).toBe(true);
    expect(b.get(CredentialCache).enabled).toBe(true);
  });

  it('a protocol key cached on B and revoked through A is refused by B on the very next request (20 times over)', async () => {
    for (let i = 0; i < 20; i++) {
      const { id, key } = await newMerchantKey();
      expect((await asMerchant(b, key)).status).toBe(404);
      expect((await asMerchant(b, key)).status).toBe(404);
      expect(cached(b, key)).toMatchObject({ kind: 'protocol_key', id });

      const revoked = await request(a.url)
        .post(`/v1/pay/protocol-keys/${id}/revoke`)
        .set(v1(ws.apiKey));
      expect(revoked.status).toBe(200);
      expect(revoked.body.revoked_at).not.toBeNull();

      const next = await asMerchant(b, key);
      expect(next.status).toBe(401);
      expect(cached(b, key)).toBeNull();
    }
    const [{ n }] = await a.db.query<{ n: string }[]>(
      `SELECT count(*) AS n FROM protocol_keys WHERE workspace_id = $1 AND revoked_at IS NOT NULL`,
      [ws.workspaceId],
    );
    expect(Number(n)).toBe(20);
  });

  it('the revoking instance refuses its own cached key on the next request', async () => {
    const { id, key } = await newMerchantKey();
    expect((await asMerchant(a, key)).status).toBe(404);
    expect(cached(a, key)).not.toBeNull();
    await request(a.url).post(`/v1/pay/protocol-keys/${id}/revoke`).set(v1(ws.apiKey)).expect(200);
    expect((await asMerchant(a, key)).status).toBe(401);
  });

  it('an API key revoked through A is refused by B next', async () => {
    const created = await request(a.url)
      .post('/v1/api-keys')
      .set(v1(ws.apiKey))
      .send({ name: 'short-lived' });
    expect(created.status).toBe(201);
    const secret = created.body.secret as string;
    await request(b.url).get('/v1/pay/protocol-keys').set(v1(secret)).expect(200);
    expect(cached(b, secret)).toMatchObject({ kind: 'api_key', id: created.body.id });
    await request(a.url)
      .post(`/v1/api-keys/${created.body.id}/revoke`)
      .set(v1(ws.apiKey))
      .expect(200);
    expect((await request(b.url).get('/v1/pay/protocol-keys').set(v1(secret))).status).toBe(401);
  });

  it('an agent credential rotated through A stops working on B next; the new one works there', async () => {
    const agent = await request(a.url)
      .post('/v1/pay/agents')
      .set(v1(ws.apiKey))
      .send({ name: 'Rotating buyer', role: 'buyer' });
    expect(agent.status).toBe(201);
    const old = agent.body.credential as string;
    await request(b.url).get('/v1/pay/sellers').set(v1(old)).expect(200);
    expect(cached(b, old)).toMatchObject({ kind: 'agent', id: agent.body.id });

    const rotated = await request(a.url)
      .post(`/v1/pay/agents/${agent.body.id}/credential`)
      .set(v1(ws.apiKey));
    expect(rotated.status).toBe(200);
    expect((await request(b.url).get('/v1/pay/sellers').set(v1(old))).status).toBe(401);
    await request(b.url)
      .get('/v1/pay/sellers')
      .set(v1(rotated.body.credential as string))
      .expect(200);
  });

  it('a public key registered through A makes B require signatures on the next request', async () => {
    const agent = await request(a.url)
      .post('/v1/pay/agents')
      .set(v1(ws.apiKey))
      .send({ name: 'Soon signing', role: 'buyer' });
    const credential = agent.body.credential as string;
    await request(b.url).get('/v1/pay/sellers').set(v1(credential)).expect(200);
    expect(cached(b, credential)).toMatchObject({ publicKey: null });
    await request(a.url)
      .post(`/v1/pay/agents/${agent.body.id}/public-key`)
      .set(v1(ws.apiKey))
      .send({ public_key: keyPair('ed25519').publicPem })
      .expect(200);
    const unsigned = await request(b.url).get('/v1/pay/sellers').set(v1(credential));
    expect(unsigned.status).toBe(401);
  });

  it('fail safe: while B has no LISTEN connection it caches nothing, and a revocation holds there too', async () => {
    const listener = b.get(PgListener);
    const cache = b.get(CredentialCache);
    const { id, key } = await newMerchantKey();
    expect((await asMerchant(b, key)).status).toBe(404);
    expect(cached(b, key)).not.toBeNull();

    // Postgres drops B's LISTEN connection (a restart, a network cut, PgBouncer recycling it…).
    await a.db.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
      [listener.appName],
    );
    await waitFor(() => !listener.isUp);
    expect(cache.enabled).toBe(false);
    expect(cache.size).toBe(0);

    // Still served, from Postgres every time, so revocations need no message to reach B.
    expect((await asMerchant(b, key)).status).toBe(404);
    expect(cached(b, key)).toBeNull();
    await request(a.url).post(`/v1/pay/protocol-keys/${id}/revoke`).set(v1(ws.apiKey)).expect(200);
    expect((await asMerchant(b, key)).status).toBe(401);

    // Reconnected (with backoff): caching again.
    await waitFor(() => listener.isUp, 10_000);
    expect(cache.enabled).toBe(true);
    const fresh = await newMerchantKey();
    expect((await asMerchant(b, fresh.key)).status).toBe(404);
    expect(cached(b, fresh.key)).not.toBeNull();
  });

  it('the cache is real and bounded in time: a key revoked behind the service (raw SQL, no broadcast) lasts on B only until its entry expires', async () => {
    const { id, key } = await newMerchantKey();
    expect((await asMerchant(b, key)).status).toBe(404);
    const cachedAt = Date.now();
    await a.db.query('UPDATE protocol_keys SET revoked_at = now() WHERE id = $1', [id]);
    // A never cached it and reads Postgres; B answers from its cache.
    expect((await asMerchant(a, key)).status).toBe(401);
    expect((await asMerchant(b, key)).status).toBe(404);
    await new Promise((r) => setTimeout(r, Math.max(0, cachedAt + TTL_MS + 50 - Date.now())));
    expect((await asMerchant(b, key)).status).toBe(401);
  });
});

async function waitFor(ok: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) {
      throw new Error('timed out');
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}
