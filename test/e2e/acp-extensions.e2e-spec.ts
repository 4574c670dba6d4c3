import { randomUUID } from 'node:crypto';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';

import { insertMandate, insertToken } from '../factories/payment-fixtures';
import { expectValid } from '../support/acp-schema';
import { startApp, TestApp } from '../support/app';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * The ACP changes merged after 2026-04-17 that we accept as extensions while claiming only
 * 2026-04-17 (docs/acp.md "Accepted extensions"): fulfillment_details on complete (PR #200),
 * suggested_price on items (PR #201), open order enums (PR #232) and the nested
 * selected_fulfillment_options element of the MCP example. Every response stays valid against the
 * 2026-04-17 schemas and our contract.
 */
describe('ACP accepted extensions', () => {
  let t: TestApp;
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await startApp();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  afterAll(() => t.close());

  const OFFERS = [
    { sku: 'tea', name: 'Assam tea 1 kg', unit_paise: 45_000, category: 'food.tea' },
    { sku: 'biscuits', name: 'Biscuits', unit_paise: 2_500, category: 'food.snacks' },
  ];

  interface World {
    ws: SeededWorkspace;
    mandateId: string;
  }

  async function world(): Promise<World> {
    const ws = await seedWorkspace(t);
    await request(t.url)
      .put(`/v1/pay/agents/${ws.seller.id}/listing`)
      .set('Authorization', `Bearer ${ws.seller.credential}`)
      .send({ listed: true, offers: OFFERS })
      .expect(200);
    return { ws, mandateId: await insertMandate(t, ws) };
  }

  interface Session {
    id: string;
    status: string;
    line_items: { id: string; unit_amount: number }[];
    messages: Record<string, unknown>[];
    selected_fulfillment_options: unknown[];
    order?: { status: string };
    [k: string]: unknown;
  }

  const base = '/acp/checkout_sessions';
  const post = (key: string, path: string, body: object) =>
    request(t.url)
      .post(path)
      .set(acpHeaders(key, `idem-${randomUUID()}`))
      .send(body);
  const create = (w: World, body: object) =>
    post(w.ws.merchantKey, base, { currency: 'inr', capabilities: {}, ...body });
  const update = (w: World, id: string, body: object) =>
    post(w.ws.merchantKey, `${base}/${id}`, body);
  const complete = (w: World, id: string, body: object) =>
    post(w.ws.merchantKey, `${base}/${id}/complete`, body);

  const paymentData = (token: string) => ({
    handler_id: 'svc_upi_mandate',
    instrument: { type: 'svc_mandate', credential: { type: 'svc_delegated_token', token } },
  });
  const suggested = (amount: number) => ({
    amount,
    source: {
      feed_id: 'feed_chai',
      feed_update_id: 'upd_7',
      updated_at: '2026-05-20T14:30:01Z',
      channel: 'api',
    },
    observed_at: '2026-05-20T14:35:00Z',
  });
  const address = {
    name: 'Asha Rao',
    line_one: '12 MG Road',
    city: 'Bengaluru',
    state: 'KA',
    country: 'IN',
    postal_code: '560001',
  };

  async function open(w: World, items: object[] = [{ id: 'tea' }]): Promise<Session> {
    const res = await create(w, { line_items: items });
    expect(res.status).toBe(201);
    expectValid('CheckoutSession', res.body);
    return res.body as Session;
  }

  async function sessionRow(id: string) {
    const [row] = await t.db.query<
      {
        status: string;
        buyer: unknown;
        fulfillment_details: unknown;
        messages: unknown[];
        intent_id: string | null;
        updated_at: Date;
      }[]
    >(
      `SELECT status, buyer, fulfillment_details, messages, intent_id, updated_at
         FROM checkout_sessions WHERE id = $1`,
      [id],
    );
    return row;
  }

  async function intentsOf(sessionId: string): Promise<number> {
    const [row] = await t.db.query<{ n: number }[]>(
      "SELECT count(*)::int AS n FROM payment_intents WHERE source_kind = 'checkout' AND source_id = $1",
      [sessionId],
    );
    return row.n;
  }

  async function tokenStatus(id: string): Promise<string> {
    const [row] = await t.db.query<{ status: string }[]>(
      'SELECT status FROM delegated_tokens WHERE id = $1',
      [id],
    );
    return row.status;
  }

  describe('suggested_price on items (ACP PR #201)', () => {
    it('prices at the published offer and says so in an info message when it differs', async () => {
      const w = await world();
      const res = await create(w, {
        line_items: [{ id: 'tea', suggested_price: suggested(40_000) }],
      });
      expect(res.status).toBe(201);
      expectValid('CheckoutSession', res.body);
      const s = res.body as Session;
      expect(s.status).toBe('ready_for_payment');
      expect(s.line_items[0].unit_amount).toBe(45_000);
      expect(s.messages).toEqual([
        {
          type: 'info',
          severity: 'info',
          param: '$.line_items[0].suggested_price.amount',
          content_type: 'plain',
          content: expect.stringMatching(/₹450.*not the suggested ₹400/) as string,
        },
      ]);
      // Stored like any message: a GET shows it too.
      const got = await request(t.url).get(`${base}/${s.id}`).set(acpHeaders(w.ws.merchantKey));
      expect(got.body.messages).toEqual(s.messages);
    });

    it('adds nothing when the suggested price is the published one', async () => {
      const w = await world();
      const res = await create(w, {
        line_items: [
          { id: 'tea', suggested_price: suggested(45_000) },
          { id: 'biscuits', suggested_price: suggested(2_500) },
        ],
      });
      expect(res.status).toBe(201);
      expectValid('CheckoutSession', res.body);
      expect(res.body.messages).toEqual([]);
      expect((res.body as Session).line_items.map((l) => l.unit_amount)).toEqual([45_000, 2_500]);
    });

    it('refuses a malformed suggested_price with 400 at its JSONPath', async () => {
      const w = await world();
      const res = await create(w, {
        line_items: [{ id: 'tea', suggested_price: { amount: 40_000, source: {} } }],
      });
      expect(res.status).toBe(400);
      expectValid('Error', res.body);
      expect(res.body.param).toBe('$.line_items[0].suggested_price.source.feed_id');
    });
  });

  describe('fulfillment_details on complete (ACP PR #200)', () => {
    it('completes with contact details and an address on a digitally delivered session', async () => {
      const w = await world();
      const s = await open(w, [{ id: 'biscuits' }]);
      const tok = await insertToken(t, w.ws, { mandateId: w.mandateId, sessionId: s.id });
      const res = await complete(w, s.id, {
        payment_data: paymentData(tok),
        fulfillment_details: {
          name: 'Asha Rao',
          phone_number: '+919812345678',
          email: 'asha@example.in',
          address,
        },
      });
      expect(res.status).toBe(200);
      expectValid('CheckoutSessionWithOrder', res.body);
      expect(res.body.status).toBe('completed');
      // Applied as an update would: kept and returned (the session held no address to conflict).
      const details = { name: 'Asha Rao', phone_number: '+919812345678', email: 'asha@example.in' };
      expect(res.body.fulfillment_details).toEqual({ ...details, address });
      expect((await sessionRow(s.id)).fulfillment_details).toEqual({ ...details, address });
    });

    it('completes with contact details only', async () => {
      const w = await world();
      const s = await open(w, [{ id: 'biscuits' }]);
      const tok = await insertToken(t, w.ws, { mandateId: w.mandateId, sessionId: s.id });
      const res = await complete(w, s.id, {
        payment_data: paymentData(tok),
        fulfillment_details: { name: 'Ravi', email: 'ravi@example.in' },
      });
      expect(res.status).toBe(200);
      expectValid('CheckoutSessionWithOrder', res.body);
    });

    it.each([
      [{ email: 'not-an-email' }, '$.fulfillment_details.email'],
      [{ address: { ...address, country: 'India' } }, '$.fulfillment_details.address.country'],
      [{ address: { name: 'Asha' } }, '$.fulfillment_details.address.line_one'],
      [{ fax: '022' }, '$.fulfillment_details.fax'],
    ])('refuses %j with 400, and nothing changes', async (details, param) => {
      const w = await world();
      const s = await open(w, [{ id: 'biscuits' }]);
      const tok = await insertToken(t, w.ws, { mandateId: w.mandateId, sessionId: s.id });
      const before = await sessionRow(s.id);
      const res = await complete(w, s.id, {
        payment_data: paymentData(tok),
        fulfillment_details: details,
      });
      expect(res.status).toBe(400);
      expectValid('Error', res.body);
      expect(res.body.param).toBe(param);
      expect(await sessionRow(s.id)).toEqual(before);
      expect(await tokenStatus(tok)).toBe('usable');
    });

    it('is kept by create and update (each field sent replaces the one held) and returned', async () => {
      const w = await world();
      const created = await create(w, {
        line_items: [{ id: 'tea' }],
        fulfillment_details: { name: 'Asha', email: 'asha@example.in', address },
      });
      expect(created.status).toBe(201);
      expectValid('CheckoutSession', created.body);
      expect(created.body.fulfillment_details).toEqual({
        name: 'Asha',
        email: 'asha@example.in',
        address,
      });
      const id = created.body.id as string;
      const updated = await update(w, id, {
        fulfillment_details: { phone_number: '+919812345678' },
      });
      expect(updated.status).toBe(200);
      expectValid('CheckoutSession', updated.body);
      const merged = {
        name: 'Asha',
        email: 'asha@example.in',
        phone_number: '+919812345678',
        address,
      };
      expect(updated.body.fulfillment_details).toEqual(merged);
      // An update without the key leaves it as it is.
      const untouched = await update(w, id, { line_items: [{ id: 'tea', quantity: 2 }] });
      expect(untouched.status).toBe(200);
      expect(untouched.body.fulfillment_details).toEqual(merged);
      const moved = { ...address, line_one: '7 Residency Road', postal_code: '560025' };
      const readdressed = await update(w, id, { fulfillment_details: { address: moved } });
      expect(readdressed.status).toBe(200);
      expect(readdressed.body.fulfillment_details).toEqual({ ...merged, address: moved });
      const got = await request(t.url).get(`${base}/${id}`).set(acpHeaders(w.ws.merchantKey));
      expectValid('CheckoutSession', got.body);
      expect(got.body.fulfillment_details).toEqual({ ...merged, address: moved });
      expect((await sessionRow(id)).fulfillment_details).toEqual({ ...merged, address: moved });
      const bad = await update(w, id, { fulfillment_details: { email: 'nope' } });
      expect(bad.status).toBe(400);
      expect(bad.body.param).toBe('$.fulfillment_details.email');
      expect((await sessionRow(id)).fulfillment_details).toEqual({ ...merged, address: moved });
    });

    it('is absent from responses of a session that has none', async () => {
      const w = await world();
      const s = await open(w);
      expect(s).not.toHaveProperty('fulfillment_details');
      expect((await sessionRow(s.id)).fulfillment_details).toBeNull();
    });

    it('refuses another address than the session holds with 409, before the token; nothing changes', async () => {
      const w = await world();
      const created = await create(w, {
        line_items: [{ id: 'biscuits' }],
        fulfillment_details: { name: 'Asha Rao', address },
      });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      const tok = await insertToken(t, w.ws, { mandateId: w.mandateId, sessionId: id });
      const before = await sessionRow(id);
      const res = await complete(w, id, {
        payment_data: paymentData(tok),
        fulfillment_details: {
          email: 'asha@example.in',
          address: { ...address, line_one: '7 Residency Road' },
        },
      });
      expect(res.status).toBe(409);
      expectValid('Error', res.body);
      expect(res.body).toEqual({
        type: 'invalid_request',
        code: 'fulfillment_price_changed',
        message: expect.any(String) as string,
        param: '$.fulfillment_details.address',
      });
      expect(await sessionRow(id)).toEqual(before);
      expect(before.fulfillment_details).toEqual({ name: 'Asha Rao', address });
      expect(await tokenStatus(tok)).toBe('usable');
      expect(await intentsOf(id)).toBe(0);
      // The same token then completes once the agent sends the held address (or none).
      const ok = await complete(w, id, { payment_data: paymentData(tok) });
      expect(ok.status).toBe(200);
      expect(ok.body.status).toBe('completed');
    });

    it('completes with the held address spelled differently, keeping the new contact details', async () => {
      const w = await world();
      const created = await create(w, {
        line_items: [{ id: 'biscuits' }],
        fulfillment_details: { name: 'Asha', address },
      });
      const id = created.body.id as string;
      const tok = await insertToken(t, w.ws, { mandateId: w.mandateId, sessionId: id });
      const respelled = { ...address, line_one: '  12  mg ROAD ', city: 'BENGALURU' };
      const res = await complete(w, id, {
        payment_data: paymentData(tok),
        fulfillment_details: {
          name: 'Asha Rao',
          phone_number: '+919812345678',
          address: respelled,
        },
      });
      expect(res.status).toBe(200);
      expectValid('CheckoutSessionWithOrder', res.body);
      expect(res.body.status).toBe('completed');
      const stored = { name: 'Asha Rao', phone_number: '+919812345678', address: respelled };
      expect(res.body.fulfillment_details).toEqual(stored);
      expect((await sessionRow(id)).fulfillment_details).toEqual(stored);
    });

    it('completes with contact details only on a session holding an address, which is kept', async () => {
      const w = await world();
      const created = await create(w, {
        line_items: [{ id: 'biscuits' }],
        fulfillment_details: { name: 'Asha', address },
      });
      const id = created.body.id as string;
      const tok = await insertToken(t, w.ws, { mandateId: w.mandateId, sessionId: id });
      const res = await complete(w, id, {
        payment_data: paymentData(tok),
        fulfillment_details: { email: 'asha@example.in' },
      });
      expect(res.status).toBe(200);
      expectValid('CheckoutSessionWithOrder', res.body);
      const stored = { name: 'Asha', email: 'asha@example.in', address };
      expect(res.body.fulfillment_details).toEqual(stored);
      expect((await sessionRow(id)).fulfillment_details).toEqual(stored);
    });
  });

  describe('nested selected_fulfillment_options (ACP MCP example)', () => {
    const comparable = (s: Session) => ({ ...s, updated_at: undefined });

    it('is accepted on update and has the effect of the flat element', async () => {
      const w = await world();
      const s = await open(w, [{ id: 'tea' }, { id: 'biscuits' }]);
      const ids = s.line_items.map((l) => l.id);
      const flat = await update(w, s.id, {
        selected_fulfillment_options: [{ type: 'digital', option_id: 'fo_digital', item_ids: ids }],
      });
      expect(flat.status).toBe(200);
      expectValid('CheckoutSession', flat.body);
      const nested = await update(w, s.id, {
        selected_fulfillment_options: [
          { type: 'digital', digital: { option_id: 'fo_digital', item_ids: ids } },
        ],
      });
      expect(nested.status).toBe(200);
      expectValid('CheckoutSession', nested.body);
      expect(comparable(nested.body as Session)).toEqual(comparable(flat.body as Session));
      expect(nested.body.selected_fulfillment_options).toEqual([
        { type: 'digital', option_id: 'fo_digital', item_ids: ids },
      ]);
    });

    it('applies the same rules to both shapes', async () => {
      const w = await world();
      const s = await open(w);
      const wrongOption = await update(w, s.id, {
        selected_fulfillment_options: [
          {
            type: 'shipping',
            shipping: { option_id: 'fulfillment_option_456', item_ids: ['tea'] },
          },
        ],
      });
      expect(wrongOption.status).toBe(400);
      expect(wrongOption.body.param).toBe('$.selected_fulfillment_options[0].option_id');
      const mixed = await update(w, s.id, {
        selected_fulfillment_options: [
          {
            type: 'digital',
            option_id: 'fo_digital',
            item_ids: ['tea'],
            digital: { option_id: 'fo_digital', item_ids: ['tea'] },
          },
        ],
      });
      expect(mixed.status).toBe(400);
      expect(mixed.body.param).toBe('$.selected_fulfillment_options[0].digital');
    });

    it('is accepted by the MCP update_checkout_session tool', async () => {
      const w = await world();
      const s = await open(w);
      const client = new Client({ name: 'e2e-extensions', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${w.ws.merchantKey}` } },
        }),
      );
      clients.push(client);
      const result = await client.callTool({
        name: 'update_checkout_session',
        arguments: {
          meta: { api_version: '2026-04-17', idempotency_key: `idem_${randomUUID()}` },
          id: s.id,
          payload: {
            selected_fulfillment_options: [
              { type: 'digital', digital: { option_id: 'fo_digital', item_ids: ['tea'] } },
            ],
          },
        },
      });
      expect(result.isError).toBeUndefined();
      const { content, structuredContent, ...session } = result;
      expect(structuredContent).toEqual(session);
      expect(content).toEqual([{ type: 'text', text: JSON.stringify(session) }]);
      expectValid('CheckoutSession', session);
      expect(session.selected_fulfillment_options).toEqual([
        { type: 'digital', option_id: 'fo_digital', item_ids: [s.line_items[0].id] },
      ]);
    });
  });

  describe('open order enums (ACP PR #232)', () => {
    it('our contract and the schema accept order status values we do not send', async () => {
      const w = await world();
      const s = await open(w, [{ id: 'biscuits' }]);
      const tok = await insertToken(t, w.ws, { mandateId: w.mandateId, sessionId: s.id });
      const res = await complete(w, s.id, { payment_data: paymentData(tok) });
      expect(res.status).toBe(200);
      expectValid('CheckoutSessionWithOrder', res.body);
      const body = res.body as Session;
      for (const status of ['completed', 'manual_review', 'a_status_from_the_future']) {
        expectValid('CheckoutSessionWithOrder', { ...body, order: { ...body.order, status } });
      }
    });
  });

  it('still claims only 2026-04-17', async () => {
    const w = await world();
    const res = await request(t.url)
      .post(base)
      .set({ ...acpHeaders(w.ws.merchantKey, `idem-${randomUUID()}`), 'API-Version': '2026-05-22' })
      .send({ currency: 'inr', capabilities: {}, line_items: [{ id: 'tea' }] });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'unsupported_api_version',
      supported_versions: ['2026-04-17'],
    });
  });
});
