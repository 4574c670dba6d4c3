import { randomUUID } from 'node:crypto';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';

import { insertMandate } from '../factories/payment-fixtures';
import { startApp, TestApp } from '../support/app';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';
import request from '../support/ucp-contract';
import { PlatformHost, platformProfile, startPlatformHost } from '../support/ucp-platform';
import { expectValidUcp } from '../support/ucp-schema';

/**
 * UCP's MCP binding of checkout (src/mcp/ucp/, docs/ucp.md "MCP binding") at /mcp?protocol=ucp for
 * a merchant protocol key: create/get/update/complete/cancel_checkout with `meta`, `id` and
 * `checkout`, over the same negotiation, translation, idempotency records and payment as the REST
 * binding. Results are validated against the official schemas when UCP_SCHEMA_DIR is present.
 */
describe('UCP checkout over MCP (/mcp?protocol=ucp)', () => {
  let t: TestApp;
  let host: PlatformHost;
  let seller: SeededWorkspace;
  let buyer: SeededWorkspace;
  let mandateId: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await startApp();
    host = await startPlatformHost({
      '/good': platformProfile(),
      '/no-checkout': platformProfile({ capabilities: {} }),
      '/old-version': platformProfile({ version: '2026-01-11' }),
    });
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
    mandateId = await insertMandate(t, buyer);
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  afterAll(async () => {
    await host.close();
    await t.close();
  });

  type Json = Record<string, unknown>;
  type Checkout = Json & { id: string; status: string; line_items: { id: string }[] };

  const TOOLS = [
    'create_checkout',
    'get_checkout',
    'update_checkout',
    'complete_checkout',
    'cancel_checkout',
  ];

  async function connect(path = '/mcp?protocol=ucp', key = seller.merchantKey): Promise<Client> {
    const client = new Client({ name: 'e2e-ucp-platform', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}${path}`), {
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
      }),
    );
    clients.push(client);
    return client;
  }

  const meta = (opts: { profile?: string; key?: string } = {}): Json => ({
    'ucp-agent': { profile: host.url(opts.profile ?? '/good') },
    ...(opts.key ? { 'idempotency-key': opts.key } : {}),
  });

  const lineItems = (sku: string, quantity = 1) => [{ item: { id: sku }, quantity }];

  /** A success: structuredContent is the checkout (checkout.json), content its JSON text. */
  async function call(client: Client, name: string, args: Json): Promise<Checkout> {
    const result = await client.callTool({ name, arguments: args });
    expect(result.isError).toBeFalsy();
    const checkout = result.structuredContent as Checkout;
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify(checkout) }]);
    expectValidUcp('checkout', checkout);
    expect(checkout.ucp).toMatchObject({
      version: '2026-04-08',
      status: 'success',
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
    return checkout;
  }

  /** A business refusal: an isError result whose structuredContent is UCP's error_response. */
  async function refused(client: Client, name: string, args: Json, code: string) {
    const result = await client.callTool({ name, arguments: args });
    expect(result.isError).toBe(true);
    const body = result.structuredContent as {
      ucp: Json;
      messages: { code: string; path?: string; severity: string }[];
    };
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify(body) }]);
    expectValidUcp('error', body);
    expect(body.ucp).toMatchObject({ version: '2026-04-08', status: 'error' });
    expect(body.messages).toEqual([expect.objectContaining({ type: 'error', code })]);
    return body;
  }

  /** A protocol or negotiation failure: the JSON-RPC error (thrown by the SDK as McpError). */
  async function rpcError(client: Client, name: string, args: Json, code: number) {
    const err: unknown = await client.callTool({ name, arguments: args }).then(
      () => {
        throw new Error(`${name} succeeded`);
      },
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(McpError);
    const mcp = err as McpError & { data: { code: string; content: string } };
    expect(mcp.code).toBe(code);
    return mcp;
  }

  const sessionsOfSeller = async (): Promise<number> =>
    Number(
      (
        await t.db.query(
          `SELECT count(*)::int AS n FROM checkout_sessions WHERE seller_agent_id = $1`,
          [seller.seller.id],
        )
      )[0].n,
    );

  const recordsOfKey = async (key: string): Promise<number> =>
    Number(
      (
        await t.db.query(`SELECT count(*)::int AS n FROM idempotency_records WHERE key = $1`, [key])
      )[0].n,
    );

  /** The delegated one-time token, minted by the buyer on the ACP delegate_payment route. */
  async function delegate(sessionId: string, maxAmount: number): Promise<string> {
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

  const mandatePayment = (token: string) => ({
    instruments: [
      {
        id: 'instr_1',
        handler_id: 'svc_upi_mandate',
        type: 'svc_mandate',
        selected: true,
        credential: { type: 'svc_delegated_token', token },
      },
    ],
  });

  it('lists the five checkout tools of the binding with meta, id and checkout', async () => {
    const { tools } = await (await connect()).listTools();
    expect(tools.map((x) => x.name)).toEqual(TOOLS);
    const byName = Object.fromEntries(tools.map((x) => [x.name, x.inputSchema]));
    expect(byName.create_checkout.required).toEqual(['meta', 'checkout']);
    expect(byName.get_checkout.required).toEqual(['meta', 'id']);
    expect(byName.update_checkout.required).toEqual(['meta', 'id', 'checkout']);
    expect(byName.complete_checkout.required).toEqual(['meta', 'id', 'checkout']);
    expect(byName.cancel_checkout.required).toEqual(['meta', 'id']);
    expect(byName.create_checkout.properties?.meta).toMatchObject({
      required: ['ucp-agent'],
    });
    expect(byName.complete_checkout.properties?.meta).toMatchObject({
      required: ['ucp-agent', 'idempotency-key'],
    });
    expect(byName.cancel_checkout.properties?.meta).toMatchObject({
      required: ['ucp-agent', 'idempotency-key'],
    });
    expect(tools.every((x) => x.outputSchema?.required?.includes('ucp'))).toBe(true);

    // Plain /mcp keeps the ACP binding's tools for the same key.
    const acp = await (await connect('/mcp')).listTools();
    expect(acp.tools.map((x) => x.name)).not.toContain('create_checkout');
    expect(acp.tools.map((x) => x.name)).toContain('create_checkout_session');
  });

  it('create → get → update → complete with a delegated mandate token: completed, settled, receipt', async () => {
    const client = await connect();
    const created = await call(client, 'create_checkout', {
      meta: meta({ key: randomUUID() }),
      checkout: { line_items: lineItems('sku_tea_1kg') },
    });
    expect(created.status).toBe('ready_for_complete');
    expect(created.currency).toBe('INR');

    const got = await call(client, 'get_checkout', { meta: meta(), id: created.id });
    expect(got).toEqual(created);

    const updated = await call(client, 'update_checkout', {
      meta: meta({ key: randomUUID() }),
      id: created.id,
      checkout: {
        line_items: [{ id: created.line_items[0].id, item: { id: 'sku_tea_1kg' }, quantity: 2 }],
        buyer: { email: 'asha@example.in', first_name: 'Asha' },
      },
    });
    expect(updated.status).toBe('ready_for_complete');
    expect(updated.buyer).toEqual({ email: 'asha@example.in', first_name: 'Asha' });
    expect((updated.totals as { type: string; amount: number }[]).at(-1)).toMatchObject({
      type: 'total',
      amount: 90_000,
    });

    const token = await delegate(created.id, 90_000);
    const done = await call(client, 'complete_checkout', {
      meta: meta({ key: randomUUID() }),
      id: created.id,
      checkout: { payment: mandatePayment(token) },
    });
    expect(done.status).toBe('completed');
    expect(done.order).toEqual({
      id: expect.stringMatching(/^ord_/),
      permalink_url: expect.stringContaining('/orders/'),
    });
    const receiptId = (done['com.svc.receipt'] as { id: string }).id;
    expect(receiptId).toMatch(/^rcp_/);
    const [intent] = await t.db.query(
      `SELECT status, amount_paise::int AS amount, receipt_id FROM payment_intents WHERE source_id = $1`,
      [created.id],
    );
    expect(intent).toEqual({ status: 'settled', amount: 90_000, receipt_id: receiptId });

    // The REST binding sees the same session.
    const rest = await request(t.url)
      .get(`/ucp/checkout-sessions/${created.id}`)
      .set({ Authorization: `Bearer ${seller.merchantKey}`, 'UCP-Agent': host.agent('/good') })
      .expect(200);
    expect(rest.body).toEqual(done);

    // A completed session cannot be canceled: a business refusal, as REST's 409.
    const body = await refused(
      client,
      'cancel_checkout',
      { meta: meta({ key: randomUUID() }), id: created.id },
      'invalid_state',
    );
    expect(body.messages[0].severity).toBe('unrecoverable');
  });

  it('cancels a session', async () => {
    const client = await connect();
    const created = await call(client, 'create_checkout', {
      meta: meta(),
      checkout: { line_items: lineItems('sku_tea_1kg') },
    });
    const canceled = await call(client, 'cancel_checkout', {
      meta: meta({ key: randomUUID() }),
      id: created.id,
    });
    expect(canceled.status).toBe('canceled');
  });

  it('refuses a card instrument with the UCP error and pays nothing', async () => {
    const client = await connect();
    const created = await call(client, 'create_checkout', {
      meta: meta(),
      checkout: { line_items: lineItems('sku_tea_1kg') },
    });
    const key = randomUUID();
    const body = await refused(
      client,
      'complete_checkout',
      {
        meta: meta({ key }),
        id: created.id,
        checkout: {
          payment: {
            instruments: [
              {
                id: 'pi_card',
                handler_id: 'gpay_1234',
                type: 'card',
                selected: true,
                display: { brand: 'visa', last_digits: '4242' },
                credential: { type: 'PAYMENT_GATEWAY', token: 'examplePaymentMethodToken' },
              },
            ],
          },
        },
      },
      'instrument_unsupported',
    );
    expect(body.messages[0]).toMatchObject({
      severity: 'recoverable',
      path: '$.payment.instruments[0].type',
    });
    expect(
      await t.db.query(`SELECT id FROM payment_intents WHERE source_id = $1`, [created.id]),
    ).toEqual([]);
    // A body-shape refusal is not kept on the key (as on REST).
    expect(await recordsOfKey(key)).toBe(0);
    const got = await call(client, 'get_checkout', { meta: meta(), id: created.id });
    expect(got.status).toBe('ready_for_complete');
  });

  it('answers bad arguments with the binding’s errors and writes nothing', async () => {
    const client = await connect();
    const before = await sessionsOfSeller();
    const key = randomUUID();

    const quantity = await refused(
      client,
      'create_checkout',
      { meta: meta({ key }), checkout: { line_items: lineItems('sku_tea_1kg', 0) } },
      'invalid',
    );
    expect(quantity.messages[0].path).toBe('$.line_items[0].quantity');
    await refused(client, 'create_checkout', { meta: meta({ key }), checkout: {} }, 'missing');
    await refused(client, 'create_checkout', { meta: meta({ key }) }, 'missing');
    await refused(client, 'create_checkout', { meta: meta(), checkout: [] }, 'invalid');
    // A service refusal is kept on its key like on REST: the same key replays it.
    const skuKey = randomUUID();
    const unknownSku = {
      meta: meta({ key: skuKey }),
      checkout: { line_items: lineItems('sku_nope') },
    };
    const sku = await refused(client, 'create_checkout', unknownSku, 'item_unavailable');
    expect(sku.messages[0].path).toBe('$.line_items[0].item.id');
    // A business outcome (checkout-rest.md): nothing was created to act on.
    expect(sku.messages[0].severity).toBe('unrecoverable');
    expect(await refused(client, 'create_checkout', unknownSku, 'item_unavailable')).toEqual(sku);
    expect(await recordsOfKey(skuKey)).toBe(1);
    await refused(
      client,
      'create_checkout',
      { meta: meta({ key: 'not-a-uuid' }), checkout: { line_items: lineItems('sku_tea_1kg') } },
      'invalid',
    );
    await refused(client, 'get_checkout', { meta: meta(), id: 'cs_nope' }, 'not_found');
    await refused(client, 'get_checkout', { meta: meta() }, 'missing');
    // complete and cancel require meta.idempotency-key.
    await refused(client, 'cancel_checkout', { meta: meta(), id: 'cs_nope' }, 'missing');

    // Negotiation failures are JSON-RPC -32001 with {code, content} in data.
    const noMeta = await rpcError(
      client,
      'create_checkout',
      { checkout: { line_items: lineItems('sku_tea_1kg') } },
      -32001,
    );
    expect(noMeta.data.code).toBe('invalid_profile_url');
    const old = await rpcError(
      client,
      'create_checkout',
      {
        meta: meta({ profile: '/old-version', key }),
        checkout: { line_items: lineItems('sku_tea_1kg') },
      },
      -32001,
    );
    expect(old.data.code).toBe('version_unsupported');
    const gone = await rpcError(
      client,
      'create_checkout',
      { meta: meta({ profile: '/gone' }), checkout: { line_items: lineItems('sku_tea_1kg') } },
      -32001,
    );
    expect(gone.data.code).toBe('profile_unreachable');
    // No checkout in the platform's profile: a business outcome with empty capabilities.
    const incompatible = await refused(
      client,
      'create_checkout',
      {
        meta: meta({ profile: '/no-checkout' }),
        checkout: { line_items: lineItems('sku_tea_1kg') },
      },
      'capabilities_incompatible',
    );
    expect(incompatible.ucp.capabilities).toEqual({});

    expect(await sessionsOfSeller()).toBe(before);
    expect(await recordsOfKey(key)).toBe(0);
  });

  it('replays the same key and checkout (records shared with REST) and refuses another checkout', async () => {
    const client = await connect();
    const before = await sessionsOfSeller();
    const key = randomUUID();
    const checkout = { line_items: lineItems('sku_tea_1kg', 3) };
    const first = await call(client, 'create_checkout', { meta: meta({ key }), checkout });
    const replay = await call(client, 'create_checkout', { meta: meta({ key }), checkout });
    expect(replay).toEqual(first);

    // REST with the same key and body replays the session the MCP call created.
    const rest = await request(t.url)
      .post('/ucp/checkout-sessions')
      .set({
        Authorization: `Bearer ${seller.merchantKey}`,
        'UCP-Agent': host.agent('/good'),
        'Idempotency-Key': key,
      })
      .send(checkout)
      .expect(201);
    expect(rest.headers['idempotent-replayed']).toBe('true');
    expect(rest.body).toEqual(first);
    expect(await sessionsOfSeller()).toBe(before + 1);

    // And the other way round: a REST create replayed over MCP.
    const restKey = randomUUID();
    const restFirst = await request(t.url)
      .post('/ucp/checkout-sessions')
      .set({
        Authorization: `Bearer ${seller.merchantKey}`,
        'UCP-Agent': host.agent('/good'),
        'Idempotency-Key': restKey,
      })
      .send(checkout)
      .expect(201);
    const overMcp = await call(client, 'create_checkout', {
      meta: meta({ key: restKey }),
      checkout,
    });
    expect(overMcp).toEqual(restFirst.body);
    expect(await sessionsOfSeller()).toBe(before + 2);

    // The same key with another checkout: a protocol error (-32000), nothing created.
    const conflict = await rpcError(
      client,
      'create_checkout',
      { meta: meta({ key }), checkout: { line_items: lineItems('sku_hamper') } },
      -32000,
    );
    expect(conflict.data.code).toBe('idempotency_conflict');
    expect(await sessionsOfSeller()).toBe(before + 2);
  });

  it('replays a complete: one payment, the same completed checkout', async () => {
    const client = await connect();
    const created = await call(client, 'create_checkout', {
      meta: meta(),
      checkout: { line_items: lineItems('sku_tea_1kg') },
    });
    const token = await delegate(created.id, 45_000);
    const args = {
      meta: meta({ key: randomUUID() }),
      id: created.id,
      checkout: { payment: mandatePayment(token) },
    };
    const first = await call(client, 'complete_checkout', args);
    expect(first.status).toBe('completed');
    const replay = await call(client, 'complete_checkout', args);
    expect(replay).toEqual(first);
    const intents = await t.db.query(`SELECT id FROM payment_intents WHERE source_id = $1`, [
      created.id,
    ]);
    expect(intents).toHaveLength(1);
  });
});
