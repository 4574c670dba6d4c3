import { randomUUID, sign as cryptoSign } from 'node:crypto';

import request from 'supertest';

import { IdempotencyCleanup } from '../../src/common/idempotency/idempotency-cleanup';
import { startApp, TestApp } from '../support/app';
import { ProbeController } from '../support/probe.controller';
import { acpHeaders, keyPair, SeededWorkspace, seedWorkspace, signHeaders } from '../support/seed';

/**
 * The shared ACP request pipeline (docs/acp.md §1–§3, §7): AcpGuard (auth → role → API-Version →
 * signature), the IdempotencyInterceptor, the HTTP middleware (request id, 415, body limit,
 * parser errors) and the global filter, exercised through the test-only probe route
 * (test/support/probe.controller.ts), which writes one audit row per execution.
 */
describe('ACP request pipeline', () => {
  let t: TestApp;
  let ws: SeededWorkspace;

  beforeAll(async () => {
    t = await startApp({}, { controllers: [ProbeController] });
    ws = await seedWorkspace(t);
  });
  afterAll(() => t.close());
  afterEach(() => t.clock.reset());

  const idem = () => `idem-${randomUUID()}`;
  const probe = (key: string, idempotencyKey?: string, path = '/acp/_probe') =>
    request(t.url).post(path).set(acpHeaders(key, idempotencyKey));

  async function probeRuns(protocolKeyId: string): Promise<number> {
    const [{ n }] = await t.db.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM audit_events WHERE action = 'probe' AND actor_id = $1`,
      [protocolKeyId],
    );
    return n;
  }

  async function idempotencyRows(protocolKeyId: string, key: string) {
    return t.db.query<
      { path: string; status_code: number; response_body: unknown; request_hash: string }[]
    >(
      `SELECT path, status_code, response_raw::jsonb AS response_body, request_hash FROM idempotency_records WHERE owner_id = $1 AND key = $2`,
      [`protocol_key:${protocolKeyId}`, key],
    );
  }

  /** A fresh workspace, so counts of probe runs start at zero. */
  const freshWorkspace = (opts: Parameters<typeof seedWorkspace>[1] = {}) => seedWorkspace(t, opts);

  describe('credentials (step 1)', () => {
    it('401 without Authorization, as a flat ACP error with nothing else in it', async () => {
      const key = idem();
      const res = await request(t.url)
        .post('/acp/_probe')
        .set({ 'API-Version': '2026-04-17', 'Idempotency-Key': key })
        .send({ note: 'a' });
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      // docs/acp.md §1–§2: every POST response echoes the key, also the guard's refusals.
      expect(res.headers['idempotency-key']).toBe(key);
      expect(res.body).toEqual({
        type: 'invalid_request',
        code: 'unauthorized',
        message: expect.any(String),
      });
    });

    it('401 for a malformed Authorization header and for an unknown key', async () => {
      const basic = await request(t.url)
        .get('/acp/_probe')
        .set({ Authorization: 'Basic abc', 'API-Version': '2026-04-17' });
      expect(basic.status).toBe(401);
      const unknown = await request(t.url)
        .get('/acp/_probe')
        .set(acpHeaders('acpk_notARealKeyAtAll000000000000000'));
      expect(unknown.status).toBe(401);
      expect(unknown.body).toEqual({
        type: 'invalid_request',
        code: 'unauthorized',
        message: expect.any(String),
      });
    });

    it('403 for a buyer key on a merchant route and a merchant key on a buyer route', async () => {
      const buyerOnMerchant = await probe(ws.buyerKey, idem()).send({ note: 'a' });
      expect(buyerOnMerchant.status).toBe(403);
      expect(buyerOnMerchant.body).toEqual({
        type: 'invalid_request',
        code: 'wrong_role',
        message: expect.stringContaining('merchant'),
      });
      const merchantOnBuyer = await probe(ws.merchantKey, idem(), '/acp/_probe/buyer').send({});
      expect(merchantOnBuyer.status).toBe(403);
      expect(merchantOnBuyer.body.code).toBe('wrong_role');
      const buyerOnBuyer = await probe(ws.buyerKey, idem(), '/acp/_probe/buyer').send({});
      expect(buyerOnBuyer.status).toBe(200);
      expect(buyerOnBuyer.body).toEqual({ ok: true });
      expect(await probeRuns(ws.buyerKeyId)).toBe(0);
    });

    it('403 for an API key and for an agent credential on an ACP route', async () => {
      for (const secret of [ws.apiKey, ws.seller.credential, ws.buyer.credential]) {
        const res = await probe(secret, idem()).send({ note: 'a' });
        expect(res.status).toBe(403);
        expect(res.body).toEqual({
          type: 'invalid_request',
          code: 'wrong_credential',
          message: expect.stringContaining('protocol key'),
        });
      }
    });

    it('a revoked protocol key is refused (401) on the very next request', async () => {
      const own = await freshWorkspace();
      const before = await probe(own.merchantKey, idem()).send({ note: 'before revoke' });
      expect(before.status).toBe(201);
      const revoke = await request(t.url)
        .post(`/v1/pay/protocol-keys/${own.merchantKeyId}/revoke`)
        .set('Authorization', `Bearer ${own.apiKey}`);
      expect(revoke.status).toBe(200);
      expect(revoke.body.revoked_at).toEqual(expect.any(String));
      const [row] = await t.db.query<{ revoked_at: Date | null }[]>(
        'SELECT revoked_at FROM protocol_keys WHERE id = $1',
        [own.merchantKeyId],
      );
      expect(row.revoked_at).not.toBeNull();
      const after = await probe(own.merchantKey, idem()).send({ note: 'after revoke' });
      expect(after.status).toBe(401);
      expect(after.body).toEqual({
        type: 'invalid_request',
        code: 'unauthorized',
        message: expect.any(String),
      });
      const get = await request(t.url).get('/acp/_probe').set(acpHeaders(own.merchantKey));
      expect(get.status).toBe(401);
      expect(await probeRuns(own.merchantKeyId)).toBe(1);
    });

    it('403 for a protocol key on a /v1 route, in the /v1 envelope', async () => {
      const res = await request(t.url)
        .post('/v1/api-keys')
        .set({ Authorization: `Bearer ${ws.merchantKey}`, 'Request-Id': 'req-v1-pk' })
        .send({ name: 'nope' });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        error: {
          type: 'invalid_request',
          code: 'wrong_credential',
          message: expect.stringContaining('protocol key'),
          request_id: 'req-v1-pk',
        },
      });
      expect(res.headers['request-id']).toBe('req-v1-pk');
    });
  });

  describe('API-Version (step 2)', () => {
    it('400 missing_api_version with supported_versions', async () => {
      const res = await request(t.url)
        .get('/acp/_probe')
        .set('Authorization', `Bearer ${ws.merchantKey}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        type: 'invalid_request',
        code: 'missing_api_version',
        message: expect.any(String),
        supported_versions: ['2026-04-17'],
      });
    });

    it('400 unsupported_api_version for any other value', async () => {
      for (const version of ['2026-01-16', '2025-09-29', 'latest']) {
        const res = await request(t.url)
          .post('/acp/_probe')
          .set({
            Authorization: `Bearer ${ws.merchantKey}`,
            'API-Version': version,
            'Idempotency-Key': idem(),
          })
          .send({ note: 'a' });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          type: 'invalid_request',
          code: 'unsupported_api_version',
          message: expect.any(String),
          supported_versions: ['2026-04-17'],
        });
      }
    });

    it('checks auth before the version: no credential and no version is 401', async () => {
      const res = await request(t.url).get('/acp/_probe');
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('unauthorized');
    });

    it('checks the version before the idempotency key: missing both is the version error', async () => {
      const res = await request(t.url)
        .post('/acp/_probe')
        .set('Authorization', `Bearer ${ws.merchantKey}`)
        .send({ note: 'a' });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('missing_api_version');
    });
  });

  describe('Request-Id', () => {
    it('echoes a given Request-Id on success and on errors', async () => {
      const ok = await request(t.url)
        .get('/acp/_probe')
        .set({ ...acpHeaders(ws.merchantKey), 'Request-Id': 'client-req-1' });
      expect(ok.status).toBe(200);
      expect(ok.headers['request-id']).toBe('client-req-1');
      const unauthorized = await request(t.url)
        .get('/acp/_probe')
        .set('Request-Id', 'client-req-2');
      expect(unauthorized.status).toBe(401);
      expect(unauthorized.headers['request-id']).toBe('client-req-2');
      const badJson = await probe(ws.merchantKey, idem())
        .set({ 'Content-Type': 'application/json', 'Request-Id': 'client-req-3' })
        .send('{"note":');
      expect(badJson.status).toBe(400);
      expect(badJson.headers['request-id']).toBe('client-req-3');
      const notFound = await request(t.url).get('/acp/nowhere').set('Request-Id', 'client-req-4');
      expect(notFound.status).toBe(404);
      expect(notFound.headers['request-id']).toBe('client-req-4');
    });

    it('generates req_… when none is sent, on success and on errors', async () => {
      const ok = await request(t.url).get('/acp/_probe').set(acpHeaders(ws.merchantKey));
      expect(ok.headers['request-id']).toMatch(/^req_[0-9a-f]{24}$/);
      const err = await request(t.url).get('/acp/_probe');
      expect(err.status).toBe(401);
      expect(err.headers['request-id']).toMatch(/^req_[0-9a-f]{24}$/);
      expect(err.headers['request-id']).not.toBe(ok.headers['request-id']);
    });
  });

  describe('Idempotency-Key', () => {
    it('400 idempotency_key_required without a key on an ACP POST; nothing runs', async () => {
      const own = await freshWorkspace();
      const res = await probe(own.merchantKey).send({ note: 'a' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        type: 'invalid_request',
        code: 'idempotency_key_required',
        message: expect.any(String),
        param: 'Idempotency-Key',
      });
      expect(await probeRuns(own.merchantKeyId)).toBe(0);
    });

    it('400 invalid for an empty key or one of 256 characters; 255 is accepted', async () => {
      const own = await freshWorkspace();
      const empty = await probe(own.merchantKey).set('Idempotency-Key', '').send({ note: 'a' });
      expect(empty.status).toBe(400);
      expect(empty.body).toEqual({
        type: 'invalid_request',
        code: 'invalid',
        message: expect.any(String),
        param: 'Idempotency-Key',
      });
      const long = await probe(own.merchantKey, 'k'.repeat(256)).send({ note: 'a' });
      expect(long.status).toBe(400);
      expect(long.body.code).toBe('invalid');
      expect(await probeRuns(own.merchantKeyId)).toBe(0);
      const max = await probe(own.merchantKey, 'k'.repeat(255)).send({ note: 'a' });
      expect(max.status).toBe(201);
      expect(max.headers['idempotency-key']).toBe('k'.repeat(255));
    });

    it('replays the same key and an equivalent body (key order, 1.0 vs 1) once, with Idempotent-Replayed', async () => {
      const own = await freshWorkspace();
      const key = idem();
      const first = await probe(own.merchantKey, key)
        .set('Content-Type', 'application/json')
        .send('{"note":"tea","amount":1.0}');
      expect(first.status).toBe(201);
      expect(first.body).toEqual({ id: expect.stringMatching(/^probe_/), note: 'tea' });
      expect(first.headers['idempotency-key']).toBe(key);
      expect(first.headers['idempotent-replayed']).toBeUndefined();

      const second = await probe(own.merchantKey, key)
        .set('Content-Type', 'application/json')
        .send('{ "amount": 1, "note": "tea" }');
      expect(second.status).toBe(201);
      expect(second.body).toEqual(first.body);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(second.headers['idempotency-key']).toBe(key);

      expect(await probeRuns(own.merchantKeyId)).toBe(1);
      const rows = await idempotencyRows(own.merchantKeyId, key);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        path: '/acp/_probe',
        status_code: 201,
        response_body: first.body,
      });
    });

    it('422 idempotency_conflict for the same key with a different body (null is not absent)', async () => {
      const own = await freshWorkspace();
      const key = idem();
      expect((await probe(own.merchantKey, key).send({ note: 'tea' })).status).toBe(201);
      const conflict = await probe(own.merchantKey, key).send({ note: 'coffee' });
      expect(conflict.status).toBe(422);
      expect(conflict.body).toEqual({
        type: 'invalid_request',
        code: 'idempotency_conflict',
        message: expect.any(String),
      });
      expect(conflict.headers['idempotency-key']).toBe(key);
      const withNull = await probe(own.merchantKey, key).send({ note: 'tea', amount: null });
      expect(withNull.status).toBe(422);
      expect(await probeRuns(own.merchantKeyId)).toBe(1);
    });

    it('stores a 4xx from the handler and replays it; its writes are rolled back', async () => {
      const own = await freshWorkspace();
      const key = idem();
      const body = { note: 'refuse me', mode: 'fail4xx' };
      const first = await probe(own.merchantKey, key).send(body);
      expect(first.status).toBe(400);
      expect(first.body).toEqual({
        type: 'invalid_request',
        code: 'probe_refused',
        message: 'refused on purpose',
      });
      expect(first.headers['idempotency-key']).toBe(key);
      expect(await probeRuns(own.merchantKeyId)).toBe(0);
      const rows = await idempotencyRows(own.merchantKeyId, key);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ status_code: 400, response_body: first.body });

      const replay = await probe(own.merchantKey, key).send(body);
      expect(replay.status).toBe(400);
      expect(replay.body).toEqual(first.body);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(await probeRuns(own.merchantKeyId)).toBe(0);
    });

    it('never stores a 5xx: a retry with the same key runs again', async () => {
      const own = await freshWorkspace();
      const key = idem();
      const body = { note: 'explode', mode: 'fail5xx' };
      const first = await probe(own.merchantKey, key).send(body);
      expect(first.status).toBe(500);
      expect(first.body).toEqual({
        type: 'processing_error',
        code: 'internal_error',
        message: expect.any(String),
      });
      expect(first.headers['idempotency-key']).toBe(key);
      expect(await idempotencyRows(own.merchantKeyId, key)).toHaveLength(0);
      expect(await probeRuns(own.merchantKeyId)).toBe(0);

      const retry = await probe(own.merchantKey, key).send(body);
      expect(retry.status).toBe(500);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      expect(await idempotencyRows(own.merchantKeyId, key)).toHaveLength(0);

      // Nothing was stored, so even a different body under the key is a new request, not a 422.
      const fixed = await probe(own.merchantKey, key).send({ note: 'explode' });
      expect(fixed.status).toBe(201);
      expect(fixed.headers['idempotent-replayed']).toBeUndefined();
      expect(await probeRuns(own.merchantKeyId)).toBe(1);
      expect(await idempotencyRows(own.merchantKeyId, key)).toHaveLength(1);
    });

    it('many simultaneous retries of a finished key all get the stored response, none a 409', async () => {
      const own = await freshWorkspace();
      const key = idem();
      const body = { note: 'done once' };
      const first = await probe(own.merchantKey, key).send(body);
      expect(first.status).toBe(201);
      const retries = await Promise.all(
        Array.from({ length: 20 }, () => probe(own.merchantKey, key).send(body)),
      );
      for (const r of retries) {
        expect(r.status).toBe(201);
        expect(r.headers['idempotent-replayed']).toBe('true');
        expect(r.body).toEqual(first.body);
      }
      expect(await probeRuns(own.merchantKeyId)).toBe(1);
    });

    it('two concurrent requests with one key: exactly one executes, the twin gets 409 + Retry-After or the replay', async () => {
      const own = await freshWorkspace();
      const key = idem();
      const body = { note: 'slowly', mode: 'slow' };
      const [a, b] = await Promise.all([
        probe(own.merchantKey, key).send(body),
        probe(own.merchantKey, key).send(body),
      ]);
      const responses = [a, b].sort((x, y) => x.status - y.status);
      expect(responses[0].status).toBe(201);
      const twin = responses[1];
      if (twin.status === 409) {
        expect(twin.body).toEqual({
          type: 'invalid_request',
          code: 'idempotency_in_flight',
          message: expect.any(String),
        });
        expect(Number(twin.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(twin.headers['idempotency-key']).toBe(key);
      } else {
        expect(twin.status).toBe(201);
        expect(twin.headers['idempotent-replayed']).toBe('true');
        expect(twin.body).toEqual(responses[0].body);
      }
      expect(await probeRuns(own.merchantKeyId)).toBe(1);
      expect(await idempotencyRows(own.merchantKeyId, key)).toHaveLength(1);

      // Once the first has finished, the key replays.
      const later = await probe(own.merchantKey, key).send(body);
      expect(later.status).toBe(201);
      expect(later.headers['idempotent-replayed']).toBe('true');
      expect(await probeRuns(own.merchantKeyId)).toBe(1);
    });

    it('scopes keys by path and by protocol key', async () => {
      const own = await freshWorkspace();
      const key = idem();
      const body = { note: 'scoped' };
      const onProbe = await probe(own.merchantKey, key).send(body);
      const onAlt = await probe(own.merchantKey, key, '/acp/_probe/alt').send(body);
      expect(onProbe.status).toBe(201);
      expect(onAlt.status).toBe(201);
      expect(onAlt.headers['idempotent-replayed']).toBeUndefined();
      expect(onAlt.body.id).not.toBe(onProbe.body.id);
      expect(await probeRuns(own.merchantKeyId)).toBe(2);

      // A second merchant key of the same workspace and seller is another caller.
      const issued = await request(t.url)
        .post('/v1/pay/protocol-keys')
        .set('Authorization', `Bearer ${own.apiKey}`)
        .send({ role: 'merchant', agent_id: own.seller.id });
      expect(issued.status).toBe(201);
      const other = await probe(issued.body.key as string, key).send(body);
      expect(other.status).toBe(201);
      expect(other.headers['idempotent-replayed']).toBeUndefined();
      expect(other.body.id).not.toBe(onProbe.body.id);
      expect(await probeRuns(issued.body.id as string)).toBe(1);

      const paths = await idempotencyRows(own.merchantKeyId, key);
      expect(paths.map((r) => r.path).sort()).toEqual(['/acp/_probe', '/acp/_probe/alt']);
      expect(await idempotencyRows(issued.body.id as string, key)).toHaveLength(1);
    });

    it('keeps a key 24 h: after 25 h the same key with a different body is a new request', async () => {
      const own = await freshWorkspace();
      const key = idem();
      expect((await probe(own.merchantKey, key).send({ note: 'day one' })).status).toBe(201);
      t.clock.advance(23 * 3600_000);
      expect((await probe(own.merchantKey, key).send({ note: 'day two' })).status).toBe(422);
      t.clock.advance(2 * 3600_000);
      const later = await probe(own.merchantKey, key).send({ note: 'day two' });
      expect(later.status).toBe(201);
      expect(later.headers['idempotent-replayed']).toBeUndefined();
      expect(later.body.note).toBe('day two');
      expect(await probeRuns(own.merchantKeyId)).toBe(2);
      const rows = await idempotencyRows(own.merchantKeyId, key);
      expect(rows).toHaveLength(1);
      expect(rows[0].response_body).toEqual(later.body);
    });

    it('the hourly cleanup deletes expired records and seen signatures, and keeps live ones', async () => {
      const own = await freshWorkspace();
      const oldKey = idem();
      expect((await probe(own.merchantKey, oldKey).send({ note: 'old' })).status).toBe(201);
      const [{ n: sigsBefore }] = await t.db.query<{ n: number }[]>(
        'SELECT count(*)::int AS n FROM seen_signatures',
      );
      t.clock.advance(25 * 3600_000);
      const freshKey = idem();
      expect((await probe(own.merchantKey, freshKey).send({ note: 'new' })).status).toBe(201);

      const removed = await t.get(IdempotencyCleanup).cleanup();
      expect(removed.idempotency).toBeGreaterThanOrEqual(1);
      expect(await idempotencyRows(own.merchantKeyId, oldKey)).toHaveLength(0);
      expect(await idempotencyRows(own.merchantKeyId, freshKey)).toHaveLength(1);
      const [{ n: expired }] = await t.db.query<{ n: number }[]>(
        'SELECT count(*)::int AS n FROM idempotency_records WHERE expires_at <= $1',
        [t.clock.now()],
      );
      expect(expired).toBe(0);
      if (sigsBefore > 0) {
        expect(removed.signatures).toBeGreaterThanOrEqual(1);
      }
      const [{ n: sigsExpired }] = await t.db.query<{ n: number }[]>(
        'SELECT count(*)::int AS n FROM seen_signatures WHERE expires_at <= $1',
        [t.clock.now()],
      );
      expect(sigsExpired).toBe(0);
    });
  });

  describe('signatures (step 3)', () => {
    const ed = keyPair('ed25519');
    const p256 = keyPair('p256');
    let edWs: SeededWorkspace;
    let p256Ws: SeededWorkspace;

    beforeAll(async () => {
      edWs = await seedWorkspace(t, { merchantPublicKey: ed.publicPem });
      p256Ws = await seedWorkspace(t, { merchantPublicKey: p256.publicPem });
    });

    const signedPost = (
      w: SeededWorkspace,
      headers: Record<string, string>,
      key = idem(),
      path = '/acp/_probe',
    ) =>
      request(t.url)
        .post(path)
        .set({ ...acpHeaders(w.merchantKey, key), ...headers });

    it('registers the key with its algorithm at protocol-key creation', async () => {
      const rows = await t.db.query<
        { id: string; public_key_alg: string; public_key_pem: string }[]
      >(
        'SELECT id, public_key_alg, public_key_pem FROM protocol_keys WHERE id = ANY($1) ORDER BY public_key_alg',
        [[edWs.merchantKeyId, p256Ws.merchantKeyId]],
      );
      expect(rows.map((r) => [r.id, r.public_key_alg])).toEqual([
        [edWs.merchantKeyId, 'ed25519'],
        [p256Ws.merchantKeyId, 'p256'],
      ]);
      expect(rows[0].public_key_pem).toContain('BEGIN PUBLIC KEY');
    });

    it('accepts a valid Ed25519 signature', async () => {
      const body = { note: 'signed', amount: 2 };
      const res = await signedPost(
        edWs,
        signHeaders(ed.privateKey, 'ed25519', 'POST', '/acp/_probe', body),
      ).send(body);
      expect(res.status).toBe(201);
      expect(await probeRuns(edWs.merchantKeyId)).toBe(1);
    });

    it('accepts a valid P-256 (r||s) signature, padded or not', async () => {
      const body = { note: 'signed p256' };
      const headers = signHeaders(p256.privateKey, 'p256', 'POST', '/acp/_probe', body);
      const res = await signedPost(p256Ws, headers).send(body);
      expect(res.status).toBe(201);
      const again = signHeaders(p256.privateKey, 'p256', 'POST', '/acp/_probe', body);
      const padded = Buffer.from(again.Signature, 'base64url')
        .toString('base64')
        .replace(/\+/g, '-')
        .replace(/\//g, '_');
      expect(padded.endsWith('=')).toBe(true);
      const res2 = await signedPost(p256Ws, { ...again, Signature: padded }).send(body);
      expect(res2.status).toBe(201);
    });

    it('signs a GET with the empty string as its body part; the query is covered', async () => {
      const res = await request(t.url)
        .get('/acp/_probe')
        .set({
          ...acpHeaders(edWs.merchantKey),
          ...signHeaders(ed.privateKey, 'ed25519', 'GET', '/acp/_probe', undefined),
        });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ok: true, key: edWs.merchantKeyId });
      const withQuery = await request(t.url)
        .get('/acp/_probe?page=2')
        .set({
          ...acpHeaders(edWs.merchantKey),
          ...signHeaders(ed.privateKey, 'ed25519', 'GET', '/acp/_probe?page=2', undefined),
        });
      expect(withQuery.status).toBe(200);
    });

    it('401 invalid_signature when the headers are missing', async () => {
      const body = { note: 'unsigned' };
      const none = await signedPost(edWs, {}).send(body);
      expect(none.status).toBe(401);
      expect(none.body).toEqual({
        type: 'invalid_request',
        code: 'invalid_signature',
        message: expect.any(String),
        param: 'Signature',
      });
      const { Signature } = signHeaders(ed.privateKey, 'ed25519', 'POST', '/acp/_probe', body);
      const noTimestamp = await signedPost(edWs, { Signature }).send(body);
      expect(noTimestamp.status).toBe(401);
      expect(noTimestamp.body.code).toBe('invalid_signature');
      const unsignedGet = await request(t.url).get('/acp/_probe').set(acpHeaders(edWs.merchantKey));
      expect(unsignedGet.status).toBe(401);
    });

    it('401 for a signature by another private key', async () => {
      const body = { note: 'forged' };
      const other = keyPair('ed25519');
      const res = await signedPost(
        edWs,
        signHeaders(other.privateKey, 'ed25519', 'POST', '/acp/_probe', body),
      ).send(body);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('invalid_signature');
    });

    it('401 stale_timestamp outside ±300 s; a malformed Timestamp is refused too', async () => {
      const body = { note: 'old' };
      const stale = new Date(Date.now() - 301_000).toISOString();
      const res = await signedPost(
        edWs,
        signHeaders(ed.privateKey, 'ed25519', 'POST', '/acp/_probe', body, stale),
      ).send(body);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        type: 'invalid_request',
        code: 'stale_timestamp',
        message: expect.any(String),
        param: 'Timestamp',
      });
      const future = new Date(Date.now() + 301_000).toISOString();
      const res2 = await signedPost(
        edWs,
        signHeaders(ed.privateKey, 'ed25519', 'POST', '/acp/_probe', body, future),
      ).send(body);
      expect(res2.status).toBe(401);
      expect(res2.body.code).toBe('stale_timestamp');
      const notRfc3339 = String(Date.now());
      const res3 = await signedPost(
        edWs,
        signHeaders(ed.privateKey, 'ed25519', 'POST', '/acp/_probe', body, notRfc3339),
      ).send(body);
      expect(res3.status).toBe(401);
      expect(res3.body.code).toBe('stale_timestamp');
      // Within the window (offset form) is fine.
      const recent = new Date(Date.now() - 200_000).toISOString().replace('Z', '+00:00');
      const ok = await signedPost(
        edWs,
        signHeaders(ed.privateKey, 'ed25519', 'POST', '/acp/_probe', body, recent),
      ).send(body);
      expect(ok.status).toBe(201);
    });

    it('401 for the exact same signed request sent twice (even with the same idempotency key)', async () => {
      const body = { note: 'once' };
      const headers = signHeaders(ed.privateKey, 'ed25519', 'POST', '/acp/_probe', body);
      const key = idem();
      const first = await signedPost(edWs, headers, key).send(body);
      expect(first.status).toBe(201);
      const replayed = await signedPost(edWs, headers, key).send(body);
      expect(replayed.status).toBe(401);
      expect(replayed.body.code).toBe('invalid_signature');
      expect(replayed.headers['idempotent-replayed']).toBeUndefined();
      // A fresh signature of the same request replays the stored response.
      const resigned = await signedPost(
        edWs,
        signHeaders(ed.privateKey, 'ed25519', 'POST', '/acp/_probe', body),
        key,
      ).send(body);
      expect(resigned.status).toBe(201);
      expect(resigned.headers['idempotent-replayed']).toBe('true');
      expect(resigned.body).toEqual(first.body);
    });

    it('401 for a tampered body and for a tampered path', async () => {
      const runs = await probeRuns(edWs.merchantKeyId);
      const body = { note: 'pay 1' };
      const tamperedBody = await signedPost(
        edWs,
        signHeaders(ed.privateKey, 'ed25519', 'POST', '/acp/_probe', body),
      ).send({ note: 'pay 1000' });
      expect(tamperedBody.status).toBe(401);
      expect(tamperedBody.body.code).toBe('invalid_signature');
      const tamperedPath = await signedPost(
        edWs,
        signHeaders(ed.privateKey, 'ed25519', 'POST', '/acp/_probe', body),
        idem(),
        '/acp/_probe?x=1',
      ).send(body);
      expect(tamperedPath.status).toBe(401);
      const otherRoute = await signedPost(
        edWs,
        signHeaders(ed.privateKey, 'ed25519', 'POST', '/acp/_probe', body),
        idem(),
        '/acp/_probe/alt',
      ).send(body);
      expect(otherRoute.status).toBe(401);
      const otherMethod = await request(t.url)
        .get('/acp/_probe')
        .set({
          ...acpHeaders(edWs.merchantKey),
          ...signHeaders(ed.privateKey, 'ed25519', 'POST', '/acp/_probe', undefined),
        });
      expect(otherMethod.status).toBe(401);
      expect(await probeRuns(edWs.merchantKeyId)).toBe(runs);
    });

    it('refuses a DER-encoded P-256 signature and a non-base64url one', async () => {
      const body = { note: 'der' };
      const timestamp = new Date().toISOString();
      const { signedBytes } = await import('../../src/common/signing/signed-bytes');
      const der = cryptoSign(
        'sha256',
        signedBytes(timestamp, 'POST', '/acp/_probe', body),
        p256.privateKey,
      );
      expect(der.length).toBeGreaterThan(64);
      const res = await signedPost(p256Ws, {
        Signature: der.toString('base64url'),
        Timestamp: timestamp,
      }).send(body);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('invalid_signature');
      const good = signHeaders(p256.privateKey, 'p256', 'POST', '/acp/_probe', body);
      const std = Buffer.from(good.Signature, 'base64url').toString('base64');
      if (/[+/]/.test(std)) {
        const res2 = await signedPost(p256Ws, { ...good, Signature: std }).send(body);
        expect(res2.status).toBe(401);
      }
    });

    it('checks the signature before idempotency: an unsigned retry never gets the stored response', async () => {
      const body = { note: 'secret order' };
      const key = idem();
      const first = await signedPost(
        edWs,
        signHeaders(ed.privateKey, 'ed25519', 'POST', '/acp/_probe', body),
        key,
      ).send(body);
      expect(first.status).toBe(201);
      const unsigned = await signedPost(edWs, {}, key).send(body);
      expect(unsigned.status).toBe(401);
      expect(unsigned.body.code).toBe('invalid_signature');
      expect(unsigned.headers['idempotent-replayed']).toBeUndefined();
      expect(unsigned.body).not.toHaveProperty('id');
    });

    it('checks auth and API-Version before the signature', async () => {
      const noVersion = await request(t.url)
        .get('/acp/_probe')
        .set('Authorization', `Bearer ${edWs.merchantKey}`);
      expect(noVersion.status).toBe(400);
      expect(noVersion.body.code).toBe('missing_api_version');
      const buyerRoute = await signedPost(edWs, {}, idem(), '/acp/_probe/buyer').send({});
      expect(buyerRoute.status).toBe(403);
    });
  });

  describe('malformed input (no audit row, no idempotency record)', () => {
    let own: SeededWorkspace;
    beforeAll(async () => {
      own = await seedWorkspace(t);
    });

    async function expectNothingWritten(key: string) {
      expect(await probeRuns(own.merchantKeyId)).toBe(0);
      expect(await idempotencyRows(own.merchantKeyId, key)).toHaveLength(0);
    }

    const cases: {
      name: string;
      send: (r: request.Test) => request.Test;
      status: number;
      body: Record<string, unknown>;
    }[] = [
      {
        name: 'invalid JSON',
        send: (r) => r.set('Content-Type', 'application/json').send('{"note": "unterminated'),
        status: 400,
        body: {
          type: 'invalid_request',
          code: 'invalid_json',
          message: 'Request body is not valid JSON',
        },
      },
      {
        name: 'a JSON scalar (strict parser)',
        send: (r) => r.set('Content-Type', 'application/json').send('"just a string"'),
        status: 400,
        body: { type: 'invalid_request', code: 'invalid_json', message: expect.any(String) },
      },
      {
        name: 'a wrong type',
        send: (r) => r.send({ note: 5 }),
        status: 400,
        body: {
          type: 'invalid_request',
          code: 'invalid',
          message: expect.stringContaining('$.note'),
          param: '$.note',
        },
      },
      {
        name: 'an unknown field',
        send: (r) => r.send({ note: 'a', surprise: true }),
        status: 400,
        body: {
          type: 'invalid_request',
          code: 'invalid',
          message: expect.stringContaining('$.surprise'),
          param: '$.surprise',
        },
      },
      {
        name: 'a field that breaks a rule',
        send: (r) => r.send({ note: 'a', amount: 0 }),
        status: 400,
        body: {
          type: 'invalid_request',
          code: 'invalid',
          message: expect.any(String),
          param: '$.amount',
        },
      },
      {
        name: 'a body over the limit',
        send: (r) => r.send({ note: 'x'.repeat(300 * 1024) }),
        status: 413,
        body: { type: 'invalid_request', code: 'request_too_large', message: expect.any(String) },
      },
      {
        name: 'Content-Type text/plain',
        send: (r) => r.set('Content-Type', 'text/plain').send('note=a'),
        status: 415,
        body: {
          type: 'invalid_request',
          code: 'unsupported_media_type',
          message: expect.stringContaining('text/plain'),
        },
      },
      {
        name: 'a form post',
        send: (r) => r.type('form').send({ note: 'a' }),
        status: 415,
        body: {
          type: 'invalid_request',
          code: 'unsupported_media_type',
          message: expect.any(String),
        },
      },
      {
        name: 'an array body',
        send: (r) => r.send([{ note: 'a' }]),
        status: 400,
        body: {
          type: 'invalid_request',
          code: 'invalid',
          message: 'Request body must be a JSON object',
          param: '$',
        },
      },
      {
        name: 'a non-UTF-8 charset',
        send: (r) =>
          r
            .set('Content-Type', 'application/json; charset=latin1')
            .send(Buffer.from('{"note":"a"}')),
        status: 415,
        body: {
          type: 'invalid_request',
          code: 'unsupported_media_type',
          message: expect.any(String),
        },
      },
    ];

    it.each(cases)('$name → $status', async ({ send, status, body }) => {
      const key = idem();
      const res = await send(probe(own.merchantKey, key).set('Request-Id', 'malformed-1'));
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['request-id']).toBe('malformed-1');
      expect(res.body).toEqual(body);
      await expectNothingWritten(key);
    });

    it('a refused body does not burn the key: the corrected body with the same key runs', async () => {
      const key = idem();
      const bad = await probe(own.merchantKey, key).send({ note: 5 });
      expect(bad.status).toBe(400);
      const good = await probe(own.merchantKey, key).send({ note: '5' });
      expect(good.status).toBe(201);
      expect(good.headers['idempotent-replayed']).toBeUndefined();
      expect(await probeRuns(own.merchantKeyId)).toBe(1);
      expect(await idempotencyRows(own.merchantKeyId, key)).toHaveLength(1);
    });
  });

  describe('unknown routes', () => {
    it('404 route_not_found in the flat ACP shape under /acp', async () => {
      const res = await request(t.url)
        .post('/acp/nothing_here')
        .set(acpHeaders(ws.merchantKey, idem()))
        .send({});
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        type: 'invalid_request',
        code: 'route_not_found',
        message: 'No route POST /acp/nothing_here',
      });
      const wrongMethod = await request(t.url)
        .delete('/acp/_probe')
        .set(acpHeaders(ws.merchantKey));
      expect(wrongMethod.status).toBe(404);
      expect(wrongMethod.body.code).toBe('route_not_found');
    });

    it('404 in the /v1 envelope elsewhere', async () => {
      const res = await request(t.url).get('/v1/nothing_here').set('Request-Id', 'nf-1');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        error: {
          type: 'invalid_request',
          code: 'route_not_found',
          message: 'No route GET /v1/nothing_here',
          request_id: 'nf-1',
        },
      });
    });
  });
});
