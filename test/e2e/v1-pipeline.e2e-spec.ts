import { randomUUID } from 'node:crypto';

import request from 'supertest';

import { sha256Hex } from '../../src/common/crypto/secrets';
import { SHOWN_ONCE } from '../../src/common/idempotency/redact-secrets';
import { startApp, TestApp } from '../support/app';
import { AgentProbeController } from '../support/probe.controller';
import { keyPair, SeededWorkspace, seedWorkspace, signHeaders } from '../support/seed';

/**
 * The /v1 side of the shared pipeline: BearerAuthGuard, the {"error":{…}} envelope, the
 * ValidationPipe's JSONPath params, optional Idempotency-Key, and the rule that no credential is
 * ever stored in plaintext, idempotency records included.
 */
describe('/v1 request pipeline', () => {
  let t: TestApp;
  let ws: SeededWorkspace;

  beforeAll(async () => {
    t = await startApp({}, { controllers: [AgentProbeController] });
    ws = await seedWorkspace(t);
  });
  afterAll(() => t.close());

  const idem = () => `idem-${randomUUID()}`;
  const asApiKey = (secret: string) => ({ Authorization: `Bearer ${secret}` });

  async function apiKeyIdOf(workspaceId: string): Promise<string> {
    const [row] = await t.db.query<{ id: string }[]>(
      'SELECT id FROM api_keys WHERE workspace_id = $1 ORDER BY created_at LIMIT 1',
      [workspaceId],
    );
    return row.id;
  }

  async function count(sql: string, params: unknown[]): Promise<number> {
    const [{ n }] = await t.db.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM ${sql}`,
      params,
    );
    return n;
  }

  const envelope = (code: string, extra: Record<string, unknown> = {}) => ({
    error: {
      type: 'invalid_request',
      code,
      message: expect.any(String),
      request_id: expect.stringMatching(/^req_/),
      ...extra,
    },
  });

  describe('validation', () => {
    it('names the failing field as a JSONPath in the envelope', async () => {
      const res = await request(t.url)
        .post('/v1/pay/protocol-keys')
        .set({ ...asApiKey(ws.apiKey), 'Request-Id': 'v1-val-1' })
        .send({ role: 'admin', agent_id: ws.seller.id });
      expect(res.status).toBe(400);
      expect(res.headers['request-id']).toBe('v1-val-1');
      expect(res.body).toEqual({
        error: {
          type: 'invalid_request',
          code: 'invalid',
          message: expect.stringContaining('$.role'),
          param: '$.role',
          request_id: 'v1-val-1',
        },
      });
    });

    it('reports a missing field and a badly shaped one', async () => {
      const missing = await request(t.url)
        .post('/v1/pay/protocol-keys')
        .set(asApiKey(ws.apiKey))
        .send({ role: 'merchant' });
      expect(missing.status).toBe(400);
      expect(missing.body.error.param).toBe('$.agent_id');
      const shape = await request(t.url)
        .post('/v1/pay/agents')
        .set(asApiKey(ws.apiKey))
        .send({ name: 'x', role: 'seller', public_key: 'not a key' });
      expect(shape.status).toBe(400);
      expect(shape.body).toEqual(envelope('invalid', { param: '$.public_key' }));
      const empty = await request(t.url)
        .post('/v1/api-keys')
        .set(asApiKey(ws.apiKey))
        .send({ name: '' });
      expect(empty.status).toBe(400);
      expect(empty.body.error).toMatchObject({ code: 'missing', param: '$.name' });
    });

    it('refuses unknown fields, naming them', async () => {
      const res = await request(t.url)
        .post('/v1/pay/protocol-keys')
        .set(asApiKey(ws.apiKey))
        .send({ role: 'merchant', agent_id: ws.seller.id, scopes: ['all'] });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        envelope('invalid', { param: '$.scopes', message: expect.stringContaining('$.scopes') }),
      );
      expect(await count('protocol_keys WHERE workspace_id = $1', [ws.workspaceId])).toBe(2);
    });

    it('answers parser and media-type failures in the envelope', async () => {
      const json = await request(t.url)
        .post('/v1/api-keys')
        .set(asApiKey(ws.apiKey))
        .set('Content-Type', 'application/json')
        .send('{"name":');
      expect(json.status).toBe(400);
      expect(json.body).toEqual(envelope('invalid_json'));
      const text = await request(t.url)
        .post('/v1/api-keys')
        .set(asApiKey(ws.apiKey))
        .set('Content-Type', 'text/plain')
        .send('name=x');
      expect(text.status).toBe(415);
      expect(text.body).toEqual(envelope('unsupported_media_type'));
      const array = await request(t.url)
        .post('/v1/api-keys')
        .set(asApiKey(ws.apiKey))
        .send([{ name: 'x' }]);
      expect(array.status).toBe(400);
      expect(array.body).toEqual(envelope('invalid', { param: '$' }));
    });
  });

  describe('credentials', () => {
    it('401 without a credential and for an unknown one', async () => {
      const none = await request(t.url).post('/v1/api-keys').send({ name: 'x' });
      expect(none.status).toBe(401);
      expect(none.body).toEqual(envelope('unauthorized'));
      const unknown = await request(t.url)
        .get('/v1/api-keys')
        .set(asApiKey('sk_test_doesNotExist00000000000000000'));
      expect(unknown.status).toBe(401);
      expect(unknown.body).toEqual(envelope('unauthorized'));
      const garbage = await request(t.url).get('/v1/api-keys').set(asApiKey('whatever'));
      expect(garbage.status).toBe(401);
    });

    it('a revoked API key is refused (401) on the very next request', async () => {
      const created = await request(t.url)
        .post('/v1/api-keys')
        .set(asApiKey(ws.apiKey))
        .send({ name: 'short lived' });
      expect(created.status).toBe(201);
      const secret = created.body.secret as string;
      expect((await request(t.url).get('/v1/api-keys').set(asApiKey(secret))).status).toBe(200);
      const revoked = await request(t.url)
        .post(`/v1/api-keys/${created.body.id as string}/revoke`)
        .set(asApiKey(ws.apiKey));
      expect(revoked.status).toBe(200);
      expect(revoked.body.revoked_at).toEqual(expect.any(String));
      const after = await request(t.url).get('/v1/api-keys').set(asApiKey(secret));
      expect(after.status).toBe(401);
      expect(after.body).toEqual(envelope('unauthorized'));
    });

    it('403 for an agent credential or a protocol key on an API-key route, and for an API key on an agent route', async () => {
      for (const secret of [
        ws.seller.credential,
        ws.buyer.credential,
        ws.merchantKey,
        ws.buyerKey,
      ]) {
        const res = await request(t.url).get('/v1/api-keys').set(asApiKey(secret));
        expect(res.status).toBe(403);
        expect(res.body).toEqual(
          envelope('wrong_credential', { message: expect.stringContaining('API key') }),
        );
      }
      const apiKeyOnAgentRoute = await request(t.url).get('/v1/_probe').set(asApiKey(ws.apiKey));
      expect(apiKeyOnAgentRoute.status).toBe(403);
      expect(apiKeyOnAgentRoute.body.error.code).toBe('wrong_credential');
      const agent = await request(t.url).get('/v1/_probe').set(asApiKey(ws.seller.credential));
      expect(agent.status).toBe(200);
      expect(agent.body).toEqual({ ok: true, agent: ws.seller.id });
    });

    it('an agent with a registered public key must sign its /v1 requests', async () => {
      const pair = keyPair('ed25519');
      const created = await request(t.url)
        .post('/v1/pay/agents')
        .set(asApiKey(ws.apiKey))
        .send({ name: 'Signing agent', role: 'buyer', public_key: pair.publicPem });
      expect(created.status).toBe(201);
      expect(created.body.public_key_alg).toBe('ed25519');
      const credential = created.body.credential as string;
      const unsigned = await request(t.url).get('/v1/_probe').set(asApiKey(credential));
      expect(unsigned.status).toBe(401);
      expect(unsigned.body).toEqual(envelope('invalid_signature', { param: 'Signature' }));
      const body = { note: 'signed' };
      const signed = await request(t.url)
        .post('/v1/_probe')
        .set({
          ...asApiKey(credential),
          ...signHeaders(pair.privateKey, 'ed25519', 'POST', '/v1/_probe', body),
        })
        .send(body);
      expect(signed.status).toBe(201);
      expect(signed.body).toEqual({ agent: created.body.id, note: 'signed' });
    });
  });

  describe('idempotency', () => {
    it('replays POST /v1/pay/protocol-keys: one key row, and the replay shows the secret as "[shown once]"', async () => {
      const own = await seedWorkspace(t);
      const key = idem();
      const body = { role: 'merchant', agent_id: own.seller.id, name: 'checkout bot' };
      const first = await request(t.url)
        .post('/v1/pay/protocol-keys')
        .set({ ...asApiKey(own.apiKey), 'Idempotency-Key': key })
        .send(body);
      expect(first.status).toBe(201);
      expect(first.headers['idempotency-key']).toBe(key);
      expect(first.body.key).toMatch(/^acpk_/);

      const replay = await request(t.url)
        .post('/v1/pay/protocol-keys')
        .set({ ...asApiKey(own.apiKey), 'Idempotency-Key': key })
        .send({ name: 'checkout bot', agent_id: own.seller.id, role: 'merchant' });
      expect(replay.status).toBe(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual({ ...first.body, key: SHOWN_ONCE });

      expect(
        await count(`protocol_keys WHERE workspace_id = $1 AND name = 'checkout bot'`, [
          own.workspaceId,
        ]),
      ).toBe(1);
      expect(
        await count(
          `audit_events WHERE workspace_id = $1 AND action = 'protocol_key.created' AND subject_id = $2`,
          [own.workspaceId, first.body.id],
        ),
      ).toBe(1);
      const [record] = await t.db.query<
        { owner_id: string; status_code: number; response_body: Record<string, unknown> }[]
      >(
        'SELECT owner_id, status_code, response_raw::jsonb AS response_body FROM idempotency_records WHERE key = $1',
        [key],
      );
      expect(record.owner_id).toBe(`api_key:${await apiKeyIdOf(own.workspaceId)}`);
      expect(record.status_code).toBe(201);
      expect(record.response_body).toEqual({ ...first.body, key: SHOWN_ONCE });

      // The secret shown once is the real one: only the stored copy is redacted.
      const [row] = await t.db.query<{ secret_hash: string }[]>(
        'SELECT secret_hash FROM protocol_keys WHERE id = $1',
        [first.body.id],
      );
      expect(row.secret_hash).toBe(sha256Hex(first.body.key as string));
    });

    it('redacts API key secrets and agent credentials in stored responses too', async () => {
      const own = await seedWorkspace(t);
      const apiKeyIdem = idem();
      const apiKey = await request(t.url)
        .post('/v1/api-keys')
        .set({ ...asApiKey(own.apiKey), 'Idempotency-Key': apiKeyIdem })
        .send({ name: 'ci' });
      expect(apiKey.status).toBe(201);
      expect(apiKey.body.secret).toMatch(/^sk_test_/);
      const apiKeyReplay = await request(t.url)
        .post('/v1/api-keys')
        .set({ ...asApiKey(own.apiKey), 'Idempotency-Key': apiKeyIdem })
        .send({ name: 'ci' });
      expect(apiKeyReplay.body).toEqual({ ...apiKey.body, secret: SHOWN_ONCE });
      expect(await count(`api_keys WHERE workspace_id = $1`, [own.workspaceId])).toBe(2);

      const agentIdem = idem();
      const agent = await request(t.url)
        .post('/v1/pay/agents')
        .set({ ...asApiKey(own.apiKey), 'Idempotency-Key': agentIdem })
        .send({ name: 'Shop', role: 'seller' });
      expect(agent.status).toBe(201);
      expect(agent.body.credential).toMatch(/^agc_/);
      const agentReplay = await request(t.url)
        .post('/v1/pay/agents')
        .set({ ...asApiKey(own.apiKey), 'Idempotency-Key': agentIdem })
        .send({ name: 'Shop', role: 'seller' });
      expect(agentReplay.status).toBe(201);
      expect(agentReplay.headers['idempotent-replayed']).toBe('true');
      expect(agentReplay.body).toEqual({ ...agent.body, credential: SHOWN_ONCE });
      expect(
        await count(`agents WHERE workspace_id = $1 AND name = 'Shop'`, [own.workspaceId]),
      ).toBe(1);
    });

    it('the key is optional on /v1: without one the write runs and nothing is recorded', async () => {
      const own = await seedWorkspace(t);
      const ownerId = `api_key:${await apiKeyIdOf(own.workspaceId)}`;
      const a = await request(t.url)
        .post('/v1/api-keys')
        .set(asApiKey(own.apiKey))
        .send({ name: 'no key' });
      const b = await request(t.url)
        .post('/v1/api-keys')
        .set(asApiKey(own.apiKey))
        .send({ name: 'no key' });
      expect(a.status).toBe(201);
      expect(b.status).toBe(201);
      expect(a.headers['idempotency-key']).toBeUndefined();
      expect(b.body.id).not.toBe(a.body.id);
      expect(
        await count(`api_keys WHERE workspace_id = $1 AND name = 'no key'`, [own.workspaceId]),
      ).toBe(2);
      expect(await count('idempotency_records WHERE owner_id = $1', [ownerId])).toBe(0);
    });

    it('422 in the envelope for the same key with a different body; invalid keys are 400', async () => {
      const own = await seedWorkspace(t);
      const key = idem();
      expect(
        (
          await request(t.url)
            .post('/v1/api-keys')
            .set({ ...asApiKey(own.apiKey), 'Idempotency-Key': key })
            .send({ name: 'one' })
        ).status,
      ).toBe(201);
      const conflict = await request(t.url)
        .post('/v1/api-keys')
        .set({ ...asApiKey(own.apiKey), 'Idempotency-Key': key })
        .send({ name: 'two' });
      expect(conflict.status).toBe(422);
      expect(conflict.body).toEqual(envelope('idempotency_conflict'));
      const long = await request(t.url)
        .post('/v1/api-keys')
        .set({ ...asApiKey(own.apiKey), 'Idempotency-Key': 'x'.repeat(256) })
        .send({ name: 'three' });
      expect(long.status).toBe(400);
      expect(long.body).toEqual(envelope('invalid', { param: 'Idempotency-Key' }));
      expect(await count(`api_keys WHERE workspace_id = $1`, [own.workspaceId])).toBe(2);
    });

    it('stores a business 4xx and replays it with the original request_id; a validation 400 is not stored', async () => {
      const own = await seedWorkspace(t);
      const key = idem();
      const body = { role: 'merchant', agent_id: 'agt_doesNotExist' };
      const first = await request(t.url)
        .post('/v1/pay/protocol-keys')
        .set({ ...asApiKey(own.apiKey), 'Idempotency-Key': key })
        .send(body);
      expect(first.status).toBe(404);
      expect(first.body).toEqual(envelope('not_found', { param: '$.agent_id' }));
      const replay = await request(t.url)
        .post('/v1/pay/protocol-keys')
        .set({ ...asApiKey(own.apiKey), 'Idempotency-Key': key })
        .send(body);
      expect(replay.status).toBe(404);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual(first.body);

      const other = idem();
      const invalid = await request(t.url)
        .post('/v1/pay/protocol-keys')
        .set({ ...asApiKey(own.apiKey), 'Idempotency-Key': other })
        .send({ role: 'nope', agent_id: own.seller.id });
      expect(invalid.status).toBe(400);
      expect(await count('idempotency_records WHERE key = $1', [other])).toBe(0);
      const fixed = await request(t.url)
        .post('/v1/pay/protocol-keys')
        .set({ ...asApiKey(own.apiKey), 'Idempotency-Key': other })
        .send({ role: 'merchant', agent_id: own.seller.id });
      expect(fixed.status).toBe(201);
    });
  });

  describe('no plaintext credential is stored', () => {
    it('finds no secret or password in any text column of the credential tables, idempotency records or audit', async () => {
      const own = await seedWorkspace(t);
      const secrets = [
        own.apiKey,
        own.seller.credential,
        own.buyer.credential,
        own.merchantKey,
        own.buyerKey,
        own.password,
      ];

      const apiKey = await request(t.url)
        .post('/v1/api-keys')
        .set({ ...asApiKey(own.apiKey), 'Idempotency-Key': idem() })
        .send({ name: 'plain' });
      const agent = await request(t.url)
        .post('/v1/pay/agents')
        .set({ ...asApiKey(own.apiKey), 'Idempotency-Key': idem() })
        .send({ name: 'Plain', role: 'both' });
      const protocolKey = await request(t.url)
        .post('/v1/pay/protocol-keys')
        .set({ ...asApiKey(own.apiKey), 'Idempotency-Key': idem() })
        .send({ role: 'buyer', agent_id: agent.body.id });
      const rotated = await request(t.url)
        .post(`/v1/pay/agents/${agent.body.id as string}/credential`)
        .set({ ...asApiKey(own.apiKey), 'Idempotency-Key': idem() });
      expect([apiKey.status, agent.status, protocolKey.status, rotated.status]).toEqual([
        201, 201, 201, 200,
      ]);
      secrets.push(
        apiKey.body.secret,
        agent.body.credential,
        protocolKey.body.key,
        rotated.body.credential,
      );
      for (const s of secrets) {
        expect(typeof s === 'string' && s.length >= 10).toBe(true);
      }

      const tables = [
        'api_keys',
        'agents',
        'protocol_keys',
        'persons',
        'person_sessions',
        'idempotency_records',
        'audit_events',
        'workspaces',
      ];
      const columns = await t.db.query<{ table_name: string; column_name: string }[]>(
        `SELECT table_name, column_name FROM information_schema.columns
          WHERE table_schema = 'public' AND table_name = ANY($1) AND data_type IN ('text', 'character varying', 'jsonb', 'json')`,
        [tables],
      );
      expect(new Set(columns.map((c) => c.table_name))).toEqual(new Set(tables));
      let scanned = 0;
      for (const { table_name, column_name } of columns) {
        const rows = await t.db.query<{ v: string | null }[]>(
          `SELECT "${column_name}"::text AS v FROM "${table_name}"`,
        );
        for (const { v } of rows) {
          scanned += 1;
          for (const s of secrets) {
            if (v !== null && v.includes(s)) {
              throw new Error(`plaintext credential found in ${table_name}.${column_name}`);
            }
          }
        }
      }
      expect(scanned).toBeGreaterThan(0);
      // The stored create responses carry the placeholder instead.
      expect(
        await count(
          `idempotency_records WHERE owner_id = $1 AND response_raw LIKE '%[shown once]%'`,
          [`api_key:${await apiKeyIdOf(own.workspaceId)}`],
        ),
      ).toBe(4);
    });
  });
});
