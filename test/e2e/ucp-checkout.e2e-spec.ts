import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { Clock } from '../../src/common/clock';
import { UcpNegotiation } from '../../src/ucp/ucp-negotiation';
import { csrfFieldOf, signIn } from '../factories/app-session.factory';
import { expectValid } from '../support/acp-schema';
import { startApp, TestApp } from '../support/app';
import { expectContractResponse } from '../support/contract-validator';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';
import request from '../support/ucp-contract';
import { PlatformHost, platformProfile, startPlatformHost } from '../support/ucp-platform';
import { expectValidUcp } from '../support/ucp-schema';

/**
 * UCP 2026-04-08 (docs/ucp.md): discovery at /.well-known/ucp, negotiation on UCP-Agent, and the
 * checkout REST binding under /ucp over the same checkout sessions and payment pipeline as ACP.
 * Every UCP body is validated against the official schemas when UCP_SCHEMA_DIR is present, and
 * every UCP answer against openapi/openapi.json always (as far as it describes it,
 * test/support/ucp-contract.ts).
 */
describe('UCP discovery', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('publishes a public, cacheable business profile with checkout, the REST and MCP endpoints and the UPI mandate handler', async () => {
    const res = await request(t.url).get('/.well-known/ucp').expect(200);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expectValidUcp('profile', res.body);
    const ucp = res.body.ucp;
    expect(ucp.version).toBe('2026-04-08');
    expect(Object.keys(ucp.capabilities)).toEqual([
      'dev.ucp.shopping.checkout',
      'dev.ucp.shopping.order',
    ]);
    expect(ucp.services['dev.ucp.shopping']).toEqual([
      expect.objectContaining({
        version: '2026-04-08',
        transport: 'rest',
        endpoint: `${t.url}/ucp`,
        schema: 'https://ucp.dev/2026-04-08/services/shopping/rest.openapi.json',
      }),
      expect.objectContaining({
        version: '2026-04-08',
        transport: 'mcp',
        endpoint: `${t.url}/mcp?protocol=ucp`,
        schema: 'https://ucp.dev/2026-04-08/services/shopping/mcp.openrpc.json',
      }),
    ]);
    const [handler] = ucp.payment_handlers['com.svc.upi_mandate'];
    expect(handler).toMatchObject({
      id: 'svc_upi_mandate',
      available_instruments: [{ type: 'svc_mandate' }],
      config: {
        delegate_payment_url: `${t.url}/acp/agentic_commerce/delegate_payment`,
        credential_type: 'svc_delegated_token',
      },
    });
    // Only the UCP signing key (ES256, test/e2e/ucp-orders.e2e-spec.ts), not the Ed25519 receipt keys.
    expect(res.body.signing_keys).toEqual([
      expect.objectContaining({ kty: 'EC', crv: 'P-256', alg: 'ES256' }),
    ]);

    const schema = await request(t.url)
      .get(new URL(handler.schema as string).pathname)
      .expect(200);
    expect(schema.body.$defs.instrument.properties.type).toEqual({ const: 'svc_mandate' });
    expect(schema.body.$defs.credential.required).toEqual(['type', 'token']);
    const spec = await request(t.url)
      .get(new URL(handler.spec as string).pathname)
      .expect(200);
    expect(spec.body.name).toBe('com.svc.upi_mandate');
  });
});

describe('UCP checkout over the ACP sessions and payment pipeline', () => {
  let t: TestApp;
  let host: PlatformHost;
  let seller: SeededWorkspace;
  let buyer: SeededWorkspace;
  let closedPort: number;

  beforeAll(async () => {
    t = await startApp();
    host = await startPlatformHost({
      '/good': platformProfile(),
      '/no-checkout': platformProfile({ capabilities: {} }),
      '/with-order': platformProfile({
        capabilities: {
          'dev.ucp.shopping.checkout': [{ version: '2026-04-08' }],
          'dev.ucp.shopping.order': [{ version: '2026-04-08' }],
        },
      }),
      '/old-version': platformProfile({ version: '2026-01-11' }),
      '/not-json': '{"ucp": ',
      '/invalid': { ucp: { version: 'yesterday', services: {}, payment_handlers: {} } },
    });
    const spare = createServer();
    await new Promise<void>((ok) => spare.listen(0, '127.0.0.1', ok));
    closedPort = (spare.address() as AddressInfo).port;
    await new Promise<void>((ok) => spare.close(() => ok()));
    seller = await seedWorkspace(t);
    buyer = await seedWorkspace(t);
    await request(t.url)
      .put(`/v1/pay/agents/${seller.seller.id}/listing`)
      .set('Authorization', `Bearer ${seller.seller.credential}`)
      .send({
        listed: true,
        offers: [
          { sku: 'sku_tea_1kg', name: 'Assam tea 1 kg', unit_paise: 45_000, category: 'food.tea' },
          { sku: 'sku_hamper', name: 'Tea hamper', unit_paise: 250_000, category: 'food.tea' },
        ],
      })
      .expect(200);
  });
  afterAll(async () => {
    await host.close();
    await t.close();
  });

  const headers = (opts: { profile?: string; key?: string; idem?: string } = {}) => ({
    Authorization: `Bearer ${opts.key ?? seller.merchantKey}`,
    'UCP-Agent': host.agent(opts.profile ?? '/good'),
    ...(opts.idem ? { 'Idempotency-Key': opts.idem } : {}),
  });

  const sessionsOfSeller = async (): Promise<number> =>
    Number(
      (
        await t.db.query(
          `SELECT count(*)::int AS n FROM checkout_sessions WHERE seller_agent_id = $1`,
          [seller.seller.id],
        )
      )[0].n,
    );

  /** A success body: valid against checkout.json, and our envelope. */
  function expectCheckout(body: Record<string, unknown>): void {
    expectValidUcp('checkout', body);
    expect(body.ucp).toMatchObject({
      version: '2026-04-08',
      capabilities: { 'dev.ucp.shopping.checkout': [{ version: '2026-04-08' }] },
      payment_handlers: {
        'com.svc.upi_mandate': [
          expect.objectContaining({
            id: 'svc_upi_mandate',
            config: expect.objectContaining({ merchant_id: seller.seller.id }),
          }),
        ],
      },
    });
    expect(body.currency).toBe('INR');
  }

  /** An error body: error_response.json, with our one message. */
  function expectUcpError(body: Record<string, unknown>, code: string): void {
    expectValidUcp('error', body);
    expect(body.ucp).toMatchObject({ version: '2026-04-08', status: 'error' });
    expect(body.messages).toEqual([expect.objectContaining({ type: 'error', code })]);
  }

  async function create(
    sku: string,
    quantity = 1,
  ): Promise<Record<string, unknown> & { id: string }> {
    const res = await request(t.url)
      .post('/ucp/checkout-sessions')
      .set(headers({ idem: randomUUID() }))
      .send({ line_items: [{ item: { id: sku }, quantity }] })
      .expect(201);
    expectCheckout(res.body);
    return res.body;
  }

  async function personPost(
    ws: SeededWorkspace,
    pagePath: string,
    formPath: string,
    fields: Record<string, string> = {},
  ): Promise<number> {
    const s = await signIn(t, ws.email, ws.password);
    const page = await request(t.url).get(pagePath).set('Cookie', s.cookie).expect(200);
    const res = await request(t.url)
      .post(formPath)
      .set('Cookie', s.cookie)
      .type('form')
      .send({ _csrf: csrfFieldOf(page.text), ...fields });
    return res.status;
  }

  /** An active mandate of the buyer (authorised by the person). */
  async function activeMandate(): Promise<string> {
    const mandate = await request(t.url)
      .post('/v1/pay/mandates')
      .set('Authorization', `Bearer ${buyer.buyer.credential}`)
      .send({
        per_payment_cap_paise: 1_000_000,
        rail: 'upi_reserve_pay',
        valid_until: new Date(Date.now() + 30 * 86400_000).toISOString(),
      })
      .expect(201);
    const path = `/app/mandates/${mandate.body.id}/authorize`;
    expect(await personPost(buyer, path, path)).toBe(303);
    return mandate.body.id as string;
  }

  /** The delegated one-time token, minted on the ACP delegate_payment route (docs/acp.md §7). */
  async function delegate(sessionId: string, maxAmount: number, mandateId: string) {
    const res = await request(t.url)
      .post('/acp/agentic_commerce/delegate_payment')
      .set(acpHeaders(buyer.buyerKey, randomUUID()))
      .send({
        payment_method: { type: 'svc_mandate', mandate_id: mandateId },
        allowance: {
          reason: 'one_time',
          max_amount: maxAmount,
          currency: 'inr',
          checkout_session_id: sessionId,
          merchant_id: seller.seller.id,
          expires_at: new Date(Date.now() + 3600_000).toISOString(),
        },
        risk_signals: [],
        metadata: {},
      });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  const mandateInstrument = (token: string) => ({
    id: 'instr_1',
    handler_id: 'svc_upi_mandate',
    type: 'svc_mandate',
    selected: true,
    credential: { type: 'svc_delegated_token', token },
  });

  const complete = (id: string, instrument: Record<string, unknown>) =>
    request(t.url)
      .post(`/ucp/checkout-sessions/${id}/complete`)
      .set(headers({ idem: randomUUID() }))
      .send({ payment: { instruments: [instrument] } });

  it('creates and gets a session: the ACP session, in UCP’s shape', async () => {
    const created = await create('sku_tea_1kg', 2);
    expect(created.status).toBe('ready_for_complete');
    expect(created.links).toEqual([
      expect.objectContaining({ type: 'terms_of_service' }),
      expect.objectContaining({ type: 'privacy_policy' }),
    ]);
    const got = await request(t.url)
      .get(`/ucp/checkout-sessions/${created.id}`)
      .set(headers())
      .expect(200);
    expectCheckout(got.body);
    expect(got.body).toEqual(created);
    const acp = await request(t.url)
      .get(`/acp/checkout_sessions/${created.id}`)
      .set(acpHeaders(seller.merchantKey))
      .expect(200);
    expect(acp.body.totals.at(-1).amount).toBe(90_000);
    const missing = await request(t.url)
      .get('/ucp/checkout-sessions/cs_nope')
      .set(headers())
      .expect(404);
    expectUcpError(missing.body, 'not_found');
  });

  it('updates with PUT: replaces the line items, keeps the buyer, re-prices', async () => {
    const created = await create('sku_tea_1kg');
    const put = (body: Record<string, unknown>) =>
      request(t.url)
        .put(`/ucp/checkout-sessions/${created.id}`)
        .set(headers({ idem: randomUUID() }))
        .send(body);
    const first = await put({
      line_items: [{ item: { id: 'sku_tea_1kg' }, quantity: 3 }],
      buyer: { email: 'ravi@example.in', last_name: 'Kumar' },
    }).expect(200);
    expectCheckout(first.body);
    expect((first.body.totals as { type: string; amount: number }[]).at(-1)?.amount).toBe(135_000);
    const second = await put({ line_items: [{ item: { id: 'sku_hamper' }, quantity: 1 }] }).expect(
      200,
    );
    expectCheckout(second.body);
    expect(second.body.line_items).toEqual([
      expect.objectContaining({ item: expect.objectContaining({ id: 'sku_hamper' }) }),
    ]);
    expect(second.body.buyer).toEqual({ email: 'ravi@example.in', last_name: 'Kumar' });
    const wrongId = await put({
      id: 'cs_other',
      line_items: [{ item: { id: 'sku_tea_1kg' }, quantity: 1 }],
    }).expect(400);
    expectUcpError(wrongId.body, 'invalid');
    const noItems = await put({}).expect(400);
    expectUcpError(noItems.body, 'missing');
  });

  it('create → get → update → complete with a delegated mandate token: completed, intent settled, receipt', async () => {
    const created = await create('sku_tea_1kg');
    expect(created.status).toBe('ready_for_complete');
    expect(created.line_items).toEqual([
      expect.objectContaining({
        item: { id: 'sku_tea_1kg', title: 'Assam tea 1 kg', price: 45_000 },
        quantity: 1,
      }),
    ]);
    expect(created.totals).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'subtotal', amount: 45_000 }),
        expect.objectContaining({ type: 'total', amount: 45_000 }),
      ]),
    );

    const got = await request(t.url)
      .get(`/ucp/checkout-sessions/${created.id}`)
      .set(headers())
      .expect(200);
    expectCheckout(got.body);
    expect(got.body.id).toBe(created.id);

    const updated = await request(t.url)
      .put(`/ucp/checkout-sessions/${created.id}`)
      .set(headers({ idem: randomUUID() }))
      .send({
        id: created.id,
        line_items: [
          {
            id: (created.line_items as { id: string }[])[0].id,
            item: { id: 'sku_tea_1kg' },
            quantity: 2,
          },
        ],
        buyer: { email: 'asha@example.in', first_name: 'Asha' },
      })
      .expect(200);
    expectCheckout(updated.body);
    expect(updated.body.status).toBe('ready_for_complete');
    expect(updated.body.buyer).toEqual({ email: 'asha@example.in', first_name: 'Asha' });
    expect((updated.body.totals as { type: string; amount: number }[]).at(-1)).toMatchObject({
      type: 'total',
      amount: 90_000,
    });

    // The same session is the ACP session: one pricing, one store.
    const acp = await request(t.url)
      .get(`/acp/checkout_sessions/${created.id}`)
      .set(acpHeaders(seller.merchantKey))
      .expect(200);
    expect(acp.body.totals.at(-1).amount).toBe(90_000);

    const token = await delegate(created.id, 90_000, await activeMandate());
    const done = await complete(created.id, mandateInstrument(token));
    expect(done.status).toBe(200);
    expectCheckout(done.body);
    expect(done.body.status).toBe('completed');
    expect(done.body.order).toEqual({
      id: expect.stringMatching(/^ord_/),
      permalink_url: expect.stringContaining('/orders/'),
    });
    const receiptId = (done.body['com.svc.receipt'] as { id: string }).id;
    expect(receiptId).toMatch(/^rcp_/);
    const [intent] = await t.db.query(
      `SELECT status, amount_paise::int AS amount, receipt_id FROM payment_intents WHERE source_id = $1`,
      [created.id],
    );
    expect(intent).toEqual({ status: 'settled', amount: 90_000, receipt_id: receiptId });

    const after = await request(t.url)
      .get(`/ucp/checkout-sessions/${created.id}`)
      .set(headers())
      .expect(200);
    expectCheckout(after.body);
    expect(after.body.status).toBe('completed');
    expect(after.body.order).toEqual(done.body.order);
  });

  it('a ₹2,500 purchase waits for a person: complete_in_progress, then completed once approved', async () => {
    const created = await create('sku_hamper');
    const token = await delegate(created.id, 250_000, await activeMandate());
    const pending = await complete(created.id, mandateInstrument(token));
    expect(pending.status).toBe(200);
    expectCheckout(pending.body);
    expect(pending.body.status).toBe('complete_in_progress');
    expect(pending.body.order).toBeUndefined();
    expect(pending.body.messages).toEqual([
      expect.objectContaining({ type: 'info', content: expect.stringContaining('approve') }),
    ]);
    const [approval] = await t.db.query(
      `SELECT a.id FROM approvals a JOIN payment_intents i ON i.id = a.subject_id WHERE i.source_id = $1`,
      [created.id],
    );
    expect(
      await personPost(buyer, '/app/approvals', `/app/approvals/${approval.id}/approve`, {
        confirm: 'yes',
      }),
    ).toBe(303);
    const got = await request(t.url)
      .get(`/ucp/checkout-sessions/${created.id}`)
      .set(headers())
      .expect(200);
    expectCheckout(got.body);
    expect(got.body.status).toBe('completed');
    expect((got.body['com.svc.receipt'] as { id: string }).id).toMatch(/^rcp_/);
  });

  it('refuses a card instrument with a UCP error and pays nothing', async () => {
    const created = await create('sku_tea_1kg');
    const res = await complete(created.id, {
      id: 'pi_card',
      handler_id: 'gpay_1234',
      type: 'card',
      selected: true,
      display: { brand: 'visa', last_digits: '4242' },
      credential: { type: 'PAYMENT_GATEWAY', token: 'examplePaymentMethodToken' },
    });
    expect(res.status).toBe(400);
    expectUcpError(res.body, 'instrument_unsupported');
    expect(res.body.messages[0]).toMatchObject({
      severity: 'recoverable',
      path: '$.payment.instruments[0].type',
    });
    const intents = await t.db.query(`SELECT id FROM payment_intents WHERE source_id = $1`, [
      created.id,
    ]);
    expect(intents).toEqual([]);
    const got = await request(t.url)
      .get(`/ucp/checkout-sessions/${created.id}`)
      .set(headers())
      .expect(200);
    expect(got.body.status).toBe('ready_for_complete');
  });

  it.each([
    ['no line items', {}, 'missing', '$.line_items'],
    [
      'quantity 0',
      { line_items: [{ item: { id: 'sku_tea_1kg' }, quantity: 0 }] },
      'invalid',
      '$.line_items[0].quantity',
    ],
    [
      'no item id',
      { line_items: [{ item: {}, quantity: 1 }] },
      'invalid',
      '$.line_items[0].item.id',
    ],
    [
      'a buyer without email',
      { line_items: [{ item: { id: 'sku_tea_1kg' }, quantity: 1 }], buyer: { first_name: 'A' } },
      'missing',
      '$.buyer.email',
    ],
  ])(
    'bad input (%s) is 400 in UCP’s error shape and writes nothing',
    async (_name, body, code, path) => {
      const before = await sessionsOfSeller();
      const res = await request(t.url)
        .post('/ucp/checkout-sessions')
        .set(headers({ idem: randomUUID() }))
        .send(body)
        .expect(400);
      expectUcpError(res.body, code);
      expect(res.body.messages[0].path).toBe(path);
      expect(await sessionsOfSeller()).toBe(before);
    },
  );

  it('an unknown SKU on create is a business outcome: 200, ucp.status error, item_unavailable, nothing created (checkout-rest.md)', async () => {
    const before = await sessionsOfSeller();
    const idem = randomUUID();
    const body = {
      line_items: [
        { item: { id: 'sku_tea_1kg' }, quantity: 1 },
        { item: { id: 'sku_nope' }, quantity: 1 },
      ],
    };
    const res = await request(t.url)
      .post('/ucp/checkout-sessions')
      .set(headers({ idem }))
      .send(body)
      .expect(200);
    expectUcpError(res.body, 'item_unavailable');
    expect(res.body.messages[0]).toMatchObject({
      severity: 'unrecoverable',
      path: '$.line_items[1].item.id',
      content: expect.stringContaining('sku_nope'),
    });
    expect(await sessionsOfSeller()).toBe(before);
    // The same key and body replay the same outcome, in the same shape.
    const again = await request(t.url)
      .post('/ucp/checkout-sessions')
      .set(headers({ idem }))
      .send(body)
      .expect(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(res.body);
    expect(await sessionsOfSeller()).toBe(before);
  });

  it('an invalid JSON body on a UCP route is 400 in UCP’s error shape, nothing created', async () => {
    const before = await sessionsOfSeller();
    const res = await request(t.url)
      .post('/ucp/checkout-sessions')
      .set(headers({ idem: randomUUID() }))
      .set('Content-Type', 'application/json')
      .send('{"line_items": [')
      .expect(400);
    expectUcpError(res.body, 'invalid_json');
    expect(res.body.error).toBeUndefined();
    expect(await sessionsOfSeller()).toBe(before);
  });

  it('a checkout answer lists only the checkout capability, also when the platform declares order', async () => {
    const res = await request(t.url)
      .post('/ucp/checkout-sessions')
      .set(headers({ profile: '/with-order', idem: randomUUID() }))
      .send({ line_items: [{ item: { id: 'sku_tea_1kg' }, quantity: 1 }] })
      .expect(201);
    expectCheckout(res.body);
    expect(res.body.ucp.capabilities).toEqual({
      'dev.ucp.shopping.checkout': [{ version: '2026-04-08' }],
    });
    const got = await request(t.url)
      .get(`/ucp/checkout-sessions/${res.body.id}`)
      .set(headers({ profile: '/with-order' }))
      .expect(200);
    expect(Object.keys(got.body.ucp.capabilities)).toEqual(['dev.ucp.shopping.checkout']);
  });

  it('replays a create with the same Idempotency-Key; another body with that key is 409', async () => {
    const idem = randomUUID();
    const body = { line_items: [{ item: { id: 'sku_tea_1kg' }, quantity: 3 }] };
    const before = await sessionsOfSeller();
    const first = await request(t.url)
      .post('/ucp/checkout-sessions')
      .set(headers({ idem }))
      .send(body)
      .expect(201);
    const again = await request(t.url)
      .post('/ucp/checkout-sessions')
      .set(headers({ idem }))
      .send(body)
      .expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expectCheckout(again.body);
    expect(await sessionsOfSeller()).toBe(before + 1);
    const other = await request(t.url)
      .post('/ucp/checkout-sessions')
      .set(headers({ idem }))
      .send({ line_items: [{ item: { id: 'sku_tea_1kg' }, quantity: 4 }] })
      .expect(409);
    expectUcpError(other.body, 'idempotency_conflict');
  });

  it('refuses every write without an Idempotency-Key: 400 idempotency_key_required in UCP’s shape, nothing changes', async () => {
    const created = await create('sku_tea_1kg');
    const before = await sessionsOfSeller();
    const noKey = await request(t.url)
      .post('/ucp/checkout-sessions')
      .set(headers())
      .send({ line_items: [{ item: { id: 'sku_tea_1kg' }, quantity: 1 }] })
      .expect(400);
    expectUcpError(noKey.body, 'idempotency_key_required');
    expect(noKey.body.messages[0]).toMatchObject({ path: 'Idempotency-Key' });
    expect(await sessionsOfSeller()).toBe(before);
    const writes = [
      request(t.url)
        .put(`/ucp/checkout-sessions/${created.id}`)
        .set(headers())
        .send({ line_items: [{ item: { id: 'sku_tea_1kg' }, quantity: 5 }] }),
      request(t.url)
        .post(`/ucp/checkout-sessions/${created.id}/complete`)
        .set(headers())
        .send({ payment: { instruments: [] } }),
      request(t.url).post(`/ucp/checkout-sessions/${created.id}/cancel`).set(headers()).send({}),
    ];
    for (const write of writes) {
      expectUcpError((await write.expect(400)).body, 'idempotency_key_required');
    }
    const after = await request(t.url)
      .get(`/ucp/checkout-sessions/${created.id}`)
      .set(headers())
      .expect(200);
    expect(after.body).toMatchObject({ status: 'ready_for_complete' });
    expect(after.body.line_items).toEqual(created.line_items);
  });

  it('replays a complete with the same key as the same UCP body, and a stored refusal in UCP’s shape', async () => {
    const created = await create('sku_tea_1kg');
    const token = await delegate(created.id, 45_000, await activeMandate());
    const idem = randomUUID();
    const body = { payment: { instruments: [mandateInstrument(token)] } };
    const first = await request(t.url)
      .post(`/ucp/checkout-sessions/${created.id}/complete`)
      .set(headers({ idem }))
      .send(body)
      .expect(200);
    expect(first.body.status).toBe('completed');
    const again = await request(t.url)
      .post(`/ucp/checkout-sessions/${created.id}/complete`)
      .set(headers({ idem }))
      .send(body)
      .expect(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expectCheckout(again.body);
    expect(again.body).toEqual(first.body);

    // A refusal that is stored on its key (not a body-shape one) replays as a UCP error too.
    const spent = randomUUID();
    const refused = await request(t.url)
      .post(`/ucp/checkout-sessions/${created.id}/complete`)
      .set(headers({ idem: spent }))
      .send(body);
    expect(refused.status).toBe(400);
    expectUcpError(refused.body, 'token_used');
    expect(refused.body.messages[0].path).toBe('$.payment.instruments[*].credential.token');
    const replayed = await request(t.url)
      .post(`/ucp/checkout-sessions/${created.id}/complete`)
      .set(headers({ idem: spent }))
      .send(body);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.status).toBe(refused.status);
    expect(replayed.body).toEqual(refused.body);
  });

  it('cancels; a second cancel is 409', async () => {
    const created = await create('sku_tea_1kg');
    const canceled = await request(t.url)
      .post(`/ucp/checkout-sessions/${created.id}/cancel`)
      .set(headers({ idem: randomUUID() }))
      .send({})
      .expect(200);
    expectCheckout(canceled.body);
    expect(canceled.body.status).toBe('canceled');
    const again = await request(t.url)
      .post(`/ucp/checkout-sessions/${created.id}/cancel`)
      .set(headers({ idem: randomUUID() }))
      .send({})
      .expect(409);
    expectUcpError(again.body, 'invalid_state');
  });

  it('authenticates with the merchant protocol key: none is 401, a buyer key 403, another seller’s session 404', async () => {
    const created = await create('sku_tea_1kg');
    const none = await request(t.url)
      .get(`/ucp/checkout-sessions/${created.id}`)
      .set('UCP-Agent', host.agent('/good'))
      .expect(401);
    expectUcpError(none.body, 'unauthorized');
    const asBuyer = await request(t.url)
      .get(`/ucp/checkout-sessions/${created.id}`)
      .set(headers({ key: buyer.buyerKey }))
      .expect(403);
    expectUcpError(asBuyer.body, 'wrong_role');
    const stranger = await request(t.url)
      .get(`/ucp/checkout-sessions/${created.id}`)
      .set(headers({ key: buyer.merchantKey }))
      .expect(404);
    expectUcpError(stranger.body, 'not_found');
  });

  describe('negotiation', () => {
    const createWith = (agent: string | null) => {
      const req = request(t.url)
        .post('/ucp/checkout-sessions')
        .set('Authorization', `Bearer ${seller.merchantKey}`)
        .set('Idempotency-Key', randomUUID());
      return (agent === null ? req : req.set('UCP-Agent', agent)).send({
        line_items: [{ item: { id: 'sku_tea_1kg' }, quantity: 1 }],
      });
    };

    it('accepts a good profile and fetches it once (cached)', async () => {
      const url = host.url('/good');
      const before = host.hits.get('/good') ?? 0;
      await createWith(`profile="${url}"`).expect(201);
      await createWith(`profile="${url}"`).expect(201);
      expect((host.hits.get('/good') ?? 0) - before).toBeLessThanOrEqual(1);
    });

    it.each([
      ['no header', null, 400, 'invalid_profile_url'],
      ['no profile member', 'agent="x"', 400, 'invalid_profile_url'],
      ['not a dictionary', 'profile=https://x', 400, 'invalid_profile_url'],
      ['a scheme we do not fetch', 'profile="ftp://127.0.0.1/p"', 400, 'invalid_profile_url'],
      ['a metadata address', 'profile="http://169.254.169.254/latest"', 400, 'invalid_profile_url'],
    ])('refuses %s with 400 invalid_profile_url', async (_name, agent, status, code) => {
      const before = await sessionsOfSeller();
      const res = await createWith(agent).expect(status);
      expectUcpError(res.body, code);
      expect(await sessionsOfSeller()).toBe(before);
    });

    it('live mode fetches only https profiles on public addresses; sandbox relaxes that for loopback alone', async () => {
      const live = new UcpNegotiation(new Clock(), { ...t.config, mode: 'live' });
      const sandbox = new UcpNegotiation(new Clock(), { ...t.config, mode: 'sandbox' });
      const refused = { status: 400, code: 'invalid_profile_url' };
      const localhost = host.agent('/good').replace('127.0.0.1', 'localhost');
      for (const agent of [
        host.agent('/good'),
        localhost,
        'profile="https://127.0.0.1/p"',
        'profile="https://10.0.0.1/p"',
      ]) {
        await expect(live.negotiate(agent)).rejects.toMatchObject(refused);
      }
      // A developer's local platform (docs/ucp.md "Negotiation"): http, any port, loopback only.
      await expect(sandbox.negotiate(host.agent('/good'))).resolves.toMatchObject({
        profileUrl: host.url('/good'),
      });
      await expect(sandbox.negotiate(localhost)).resolves.toMatchObject({
        capabilities: { 'dev.ucp.shopping.checkout': [{ version: '2026-04-08' }] },
      });
      // Everything else keeps the live rules in sandbox.
      for (const agent of [
        'profile="https://10.0.0.1/p"',
        'profile="http://10.0.0.1:8080/p"',
        'profile="http://192.168.1.10/p"',
        'profile="https://169.254.169.254/latest"',
        'profile="http://platform.example/p"',
        'profile="http://user:pw@127.0.0.1/p"',
        'profile="file:///etc/passwd"',
      ]) {
        await expect(sandbox.negotiate(agent)).rejects.toMatchObject(refused);
      }
    });

    it('an unreachable profile is 424, a 404 too', async () => {
      const down = await createWith(`profile="http://127.0.0.1:${closedPort}/p"`).expect(424);
      expectUcpError(down.body, 'profile_unreachable');
      const missing = await createWith(host.agent('/missing')).expect(424);
      expectUcpError(missing.body, 'profile_unreachable');
    });

    it('an invalid profile is 422 profile_malformed; another version 422 version_unsupported', async () => {
      const before = await sessionsOfSeller();
      expectUcpError(
        (await createWith(host.agent('/not-json')).expect(422)).body,
        'profile_malformed',
      );
      expectUcpError(
        (await createWith(host.agent('/invalid')).expect(422)).body,
        'profile_malformed',
      );
      expectUcpError(
        (await createWith(host.agent('/old-version')).expect(422)).body,
        'version_unsupported',
      );
      expect(await sessionsOfSeller()).toBe(before);
    });

    it('a platform without checkout gets capabilities_incompatible (200, ucp.status error) and nothing is created', async () => {
      const before = await sessionsOfSeller();
      const res = await createWith(host.agent('/no-checkout')).expect(200);
      expectUcpError(res.body, 'capabilities_incompatible');
      expect(res.body.ucp.capabilities).toEqual({});
      expect(await sessionsOfSeller()).toBe(before);
    });
  });

  /**
   * A UCP session is an ACP session (docs/ucp.md): each door must still refuse the other
   * protocol's request shapes and headers, in its own error shape, and change nothing.
   * UCP 2026-04-08 rest.openapi.json makes `UCP-Agent` required on every operation; ACP 2026-04-17
   * makes `API-Version` required (docs/acp.md §1).
   */
  describe('the other protocol’s door', () => {
    const acpPost = (path: string, body: Record<string, unknown>, withVersion = true) => {
      const h = acpHeaders(seller.merchantKey, randomUUID());
      if (!withVersion) {
        delete h['API-Version'];
      }
      return request(t.url).post(path).set(h).set('UCP-Agent', host.agent('/good')).send(body);
    };
    const tokenStatus = async (token: string): Promise<string> =>
      (
        await t.db.query<{ status: string }[]>(
          `SELECT status FROM delegated_tokens WHERE id = $1`,
          [token],
        )
      )[0].status;
    const intentsOf = async (id: string): Promise<number> =>
      (await t.db.query(`SELECT id FROM payment_intents WHERE source_id = $1`, [id])).length;
    const ucpStatus = async (id: string): Promise<string> =>
      (await request(t.url).get(`/ucp/checkout-sessions/${id}`).set(headers()).expect(200)).body
        .status as string;

    /** ACP's flat Error: our contract for that route and status, and the official schema. */
    function expectAcpError(
      path: string,
      method: string,
      res: { status: number; body: Record<string, unknown> },
      code: string,
    ): void {
      expectValid('Error', res.body);
      expectContractResponse(path, method, res.status, res.body);
      expect(res.body).toMatchObject({ type: 'invalid_request', code });
    }

    it('an ACP complete body (payment_data) at UCP complete is 400 in UCP’s shape; nothing is paid and the token still works at the right door', async () => {
      const created = await create('sku_tea_1kg');
      const token = await delegate(created.id, 45_000, await activeMandate());
      const tokenBefore = await tokenStatus(token);
      const res = await request(t.url)
        .post(`/ucp/checkout-sessions/${created.id}/complete`)
        .set(headers({ idem: randomUUID() }))
        .send({
          payment_data: {
            handler_id: 'svc_upi_mandate',
            instrument: {
              type: 'svc_mandate',
              credential: { type: 'svc_delegated_token', token },
            },
          },
        });
      expect(res.status).toBe(400);
      expectUcpError(res.body, 'missing');
      expect(res.body.messages[0]).toMatchObject({ path: '$.payment' });
      expect(await tokenStatus(token)).toBe(tokenBefore);
      expect(await intentsOf(created.id)).toBe(0);
      expect(await ucpStatus(created.id)).toBe('ready_for_complete');

      const done = await complete(created.id, mandateInstrument(token)).expect(200);
      expectCheckout(done.body);
      expect(done.body.status).toBe('completed');
    });

    it('a UCP complete body (payment.instruments) at ACP complete is 400 in ACP’s shape; nothing is paid', async () => {
      const created = await create('sku_tea_1kg');
      const token = await delegate(created.id, 45_000, await activeMandate());
      const tokenBefore = await tokenStatus(token);
      const res = await acpPost(`/acp/checkout_sessions/${created.id}/complete`, {
        payment: { instruments: [mandateInstrument(token)] },
      });
      expect(res.status).toBe(400);
      expectAcpError(
        '/acp/checkout_sessions/{checkout_session_id}/complete',
        'post',
        res,
        'invalid',
      );
      // Request bodies are closed on /acp (docs/acp.md §1 step 6): the UCP member is unknown.
      expect(res.body.param).toBe('$.payment');
      expect(await tokenStatus(token)).toBe(tokenBefore);
      expect(await intentsOf(created.id)).toBe(0);
      expect(await ucpStatus(created.id)).toBe('ready_for_complete');
    });

    it('an ACP create body (line_items[].id) at UCP create is 400 in UCP’s shape; a UCP one (line_items[].item.id) at ACP create is 400 in ACP’s; nothing is created', async () => {
      const before = await sessionsOfSeller();
      const atUcp = await request(t.url)
        .post('/ucp/checkout-sessions')
        .set(headers({ idem: randomUUID() }))
        .set('API-Version', '2026-04-17')
        .send({ line_items: [{ id: 'sku_tea_1kg', quantity: 1 }] });
      expect(atUcp.status).toBe(400);
      expectUcpError(atUcp.body, 'missing');
      expect(atUcp.body.messages[0]).toMatchObject({ path: '$.line_items[0].item' });
      const atAcp = await acpPost('/acp/checkout_sessions', {
        line_items: [{ item: { id: 'sku_tea_1kg' }, quantity: 1 }],
      });
      expect(atAcp.status).toBe(400);
      expectAcpError('/acp/checkout_sessions', 'post', atAcp, 'invalid');
      // ACP's Item is {id, quantity}, closed: UCP's `item` member is unknown.
      expect(atAcp.body.param).toBe('$.line_items[0].item');
      expect(await sessionsOfSeller()).toBe(before);
    });

    it('a UCP route without UCP-Agent is refused (400 invalid_profile_url, UCP’s shape), ACP headers or not; nothing changes', async () => {
      const created = await create('sku_tea_1kg');
      const before = await sessionsOfSeller();
      const acpOnly = acpHeaders(seller.merchantKey, randomUUID());
      const get = await request(t.url).get(`/ucp/checkout-sessions/${created.id}`).set(acpOnly);
      expect(get.status).toBe(400);
      expectUcpError(get.body, 'invalid_profile_url');
      const post = await request(t.url)
        .post('/ucp/checkout-sessions')
        .set(acpOnly)
        .send({ line_items: [{ item: { id: 'sku_tea_1kg' }, quantity: 1 }] });
      expect(post.status).toBe(400);
      expectUcpError(post.body, 'invalid_profile_url');
      const cancel = await request(t.url)
        .post(`/ucp/checkout-sessions/${created.id}/cancel`)
        .set(acpHeaders(seller.merchantKey, randomUUID()))
        .send({});
      expect(cancel.status).toBe(400);
      expectUcpError(cancel.body, 'invalid_profile_url');
      expect(await sessionsOfSeller()).toBe(before);
      expect(await ucpStatus(created.id)).toBe('ready_for_complete');
    });

    it('an ACP route without API-Version is refused (400 missing_api_version, ACP’s shape), UCP-Agent or not; nothing changes', async () => {
      const created = await create('sku_tea_1kg');
      const before = await sessionsOfSeller();
      const get = await request(t.url).get(`/acp/checkout_sessions/${created.id}`).set(headers());
      expect(get.status).toBe(400);
      expectAcpError(
        '/acp/checkout_sessions/{checkout_session_id}',
        'get',
        get,
        'missing_api_version',
      );
      expect(get.body.supported_versions).toEqual(['2026-04-17']);
      const post = await acpPost(
        '/acp/checkout_sessions',
        { line_items: [{ id: 'sku_tea_1kg', quantity: 1 }] },
        false,
      );
      expect(post.status).toBe(400);
      expectAcpError('/acp/checkout_sessions', 'post', post, 'missing_api_version');
      const cancel = await acpPost(`/acp/checkout_sessions/${created.id}/cancel`, {}, false);
      expect(cancel.status).toBe(400);
      expectAcpError(
        '/acp/checkout_sessions/{checkout_session_id}/cancel',
        'post',
        cancel,
        'missing_api_version',
      );
      expect(await sessionsOfSeller()).toBe(before);
      expect(await ucpStatus(created.id)).toBe('ready_for_complete');
    });
  });
});
