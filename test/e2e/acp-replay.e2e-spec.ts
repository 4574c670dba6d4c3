import { randomUUID } from 'node:crypto';

import request from 'supertest';

import { insertMandate } from '../factories/payment-fixtures';
import { startApp, TestApp } from '../support/app';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * Idempotent replays are the first response byte for byte (docs/acp.md §2): same status, same
 * Content-Type, same text (key order included), plus Idempotent-Replayed: true. Compared on the
 * raw response text, not on parsed bodies, for every /acp POST and for a stored error.
 */
describe('ACP idempotent replays are byte-identical', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let mandateId: string;

  const OFFERS = [{ sku: 'tea', name: 'Assam tea 1 kg', unit_paise: 45_000, category: 'food.tea' }];
  const base = '/acp/checkout_sessions';
  const idem = () => `idem-${randomUUID()}`;

  beforeAll(async () => {
    t = await startApp();
    ws = await seedWorkspace(t);
    await request(t.url)
      .put(`/v1/pay/agents/${ws.seller.id}/listing`)
      .set('Authorization', `Bearer ${ws.seller.credential}`)
      .send({ listed: true, offers: OFFERS })
      .expect(200);
    mandateId = await insertMandate(t, ws);
  });
  afterAll(() => t.close());

  const post = (path: string, secret: string, key: string, body?: object) => {
    const req = request(t.url).post(path).set(acpHeaders(secret, key));
    return body === undefined ? req : req.send(body);
  };

  /** Sends the same request twice and checks the second answer is the first, byte for byte. */
  async function expectByteIdenticalReplay(
    path: string,
    secret: string,
    body: object | undefined,
    status: number,
  ): Promise<request.Response> {
    const key = idem();
    const first = await post(path, secret, key, body);
    expect(first.status).toBe(status);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const replay = await post(path, secret, key, body);
    expect(replay.status).toBe(status);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['content-type']).toBe(first.headers['content-type']);
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(replay.text.length).toBeGreaterThan(2);
    expect(replay.text).toBe(first.text);
    // The stored text is what jsonb would not keep: the key order of the first response.
    expect(Object.keys(JSON.parse(replay.text) as object)).toEqual(
      Object.keys(JSON.parse(first.text) as object),
    );
    return first;
  }

  const createBody = {
    line_items: [{ id: 'tea', quantity: 1 }],
    currency: 'inr',
    capabilities: {},
  };

  async function openSession(): Promise<string> {
    const res = await post(base, ws.merchantKey, idem(), createBody);
    expect(res.status).toBe(201);
    return (res.body as { id: string }).id;
  }

  it('create', async () => {
    await expectByteIdenticalReplay(base, ws.merchantKey, createBody, 201);
  });

  it('update', async () => {
    const id = await openSession();
    await expectByteIdenticalReplay(
      `${base}/${id}`,
      ws.merchantKey,
      { line_items: [{ id: 'tea', quantity: 2 }] },
      200,
    );
  });

  it('delegate_payment, then complete with its token', async () => {
    const id = await openSession();
    const minted = await expectByteIdenticalReplay(
      '/acp/agentic_commerce/delegate_payment',
      ws.buyerKey,
      {
        payment_method: { type: 'svc_mandate', mandate_id: mandateId },
        allowance: {
          reason: 'one_time',
          max_amount: 45_000,
          currency: 'inr',
          checkout_session_id: id,
          merchant_id: ws.seller.id,
          expires_at: new Date(t.clock.now().getTime() + 3600_000).toISOString(),
        },
        risk_signals: [],
        metadata: { agent: 'replay-test' },
      },
      201,
    );
    const token = (minted.body as { id: string }).id;
    const completed = await expectByteIdenticalReplay(
      `${base}/${id}/complete`,
      ws.merchantKey,
      {
        payment_data: {
          handler_id: 'svc_upi_mandate',
          instrument: {
            type: 'svc_mandate',
            credential: { type: 'svc_delegated_token', token },
          },
        },
      },
      200,
    );
    expect((completed.body as { status: string }).status).toBe('completed');
  });

  it('cancel, with and without a body', async () => {
    await expectByteIdenticalReplay(
      `${base}/${await openSession()}/cancel`,
      ws.merchantKey,
      undefined,
      200,
    );
    await expectByteIdenticalReplay(
      `${base}/${await openSession()}/cancel`,
      ws.merchantKey,
      { intent_trace: { reason_code: 'comparison', metadata: { z: 1, a: 'x' } } },
      200,
    );
  });

  it('a stored business error (404, 405) replays byte for byte as well', async () => {
    await expectByteIdenticalReplay(`${base}/cs_doesnotexist/cancel`, ws.merchantKey, {}, 404);
    const id = await openSession();
    await post(`${base}/${id}/cancel`, ws.merchantKey, idem()).expect(200);
    await expectByteIdenticalReplay(`${base}/${id}/cancel`, ws.merchantKey, undefined, 405);
  });

  it('a request-validation 400 is not stored: the same key then runs the corrected body (docs/acp.md Deviations)', async () => {
    const key = idem();
    const bad = await post(base, ws.merchantKey, key, { ...createBody, currency: 7 });
    expect(bad.status).toBe(400);
    expect((bad.body as { param: string }).param).toBe('$.currency');
    const [{ n }] = await t.db.query<{ n: number }[]>(
      'SELECT count(*)::int AS n FROM idempotency_records WHERE key = $1',
      [key],
    );
    expect(n).toBe(0);
    const fixed = await post(base, ws.merchantKey, key, createBody);
    expect(fixed.status).toBe(201);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
    const again = await post(base, ws.merchantKey, key, createBody);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(fixed.text);
  });
});
