import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import request from 'supertest';

import { startApp, TestApp } from '../support/app';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';
import { PlatformHost, platformProfile, startPlatformHost } from '../support/ucp-platform';
import { expectValidUcp } from '../support/ucp-schema';

/**
 * UCP 2026-04-08 (docs/ucp.md): discovery at /.well-known/ucp, negotiation on UCP-Agent, and the
 * checkout REST binding under /ucp over the same checkout sessions and payment pipeline as ACP.
 * Every UCP body is validated against the official schemas when UCP_SCHEMA_DIR is present.
 */
describe('UCP discovery', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('publishes a public, cacheable business profile with checkout, the REST endpoint and the UPI mandate handler', async () => {
    const res = await request(t.url).get('/.well-known/ucp').expect(200);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expectValidUcp('profile', res.body);
    const ucp = res.body.ucp;
    expect(ucp.version).toBe('2026-04-08');
    expect(Object.keys(ucp.capabilities)).toEqual(['dev.ucp.shopping.checkout']);
    expect(ucp.services['dev.ucp.shopping']).toEqual([
      expect.objectContaining({ transport: 'rest', endpoint: `${t.url}/ucp` }),
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
    // Ed25519 receipt keys are not UCP signing keys (ES256): none are published.
    expect(res.body.signing_keys).toBeUndefined();

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
    [
      'an unknown SKU',
      { line_items: [{ item: { id: 'sku_nope' }, quantity: 1 }] },
      'item_unavailable',
      '$.line_items[0].item.id',
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
});
