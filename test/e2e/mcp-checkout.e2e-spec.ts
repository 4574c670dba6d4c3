import { randomUUID } from 'node:crypto';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';

import { randomToken } from '../../src/common/ids';
import { insertMandate, insertToken } from '../factories/payment-fixtures';
import { expectValid } from '../support/acp-schema';
import { startApp, TestApp } from '../support/app';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * The MCP binding of ACP checkout (the official docs/mcp-binding.md): five tools at /mcp for a
 * merchant protocol key, `meta` as the protocol headers, `payload` as the REST body, the session as
 * the JSON-RPC result and every ACP error as JSON-RPC -32000 with the flat Error in `data`.
 */
describe('MCP checkout binding (/mcp, merchant protocol key)', () => {
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
  const API_VERSION = '2026-04-17';
  const TOOLS = [
    'create_checkout_session',
    'get_checkout_session',
    'update_checkout_session',
    'complete_checkout_session',
    'cancel_checkout_session',
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

  const idem = () => `idem_${randomUUID()}`;
  const createPayload = (extra: Record<string, unknown> = {}) => ({
    currency: 'inr',
    line_items: [{ id: 'tea' }],
    capabilities: {},
    ...extra,
  });
  const paymentData = (token: string) => ({
    handler_id: 'svc_upi_mandate',
    instrument: { type: 'svc_mandate', credential: { type: 'svc_delegated_token', token } },
  });

  interface Session {
    id: string;
    status: string;
    line_items: { id: string }[];
    order?: { id: string; checkout_session_id: string };
    [k: string]: unknown;
  }

  interface AcpErrorData {
    type: string;
    code: string;
    message: string;
    param?: string;
  }

  async function connect(credential: string): Promise<Client> {
    const client = new Client({ name: 'e2e-merchant', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${credential}` } },
      }),
    );
    clients.push(client);
    return client;
  }

  /** The session out of a tools/call result: the result itself, without MCP's content fields. */
  function sessionOf(result: Record<string, unknown>): Session {
    const { content, structuredContent, ...session } = result;
    expect(structuredContent).toEqual(session);
    expect(content).toEqual([{ type: 'text', text: JSON.stringify(session) }]);
    return session as unknown as Session;
  }

  async function call(client: Client, name: string, args: Record<string, unknown>) {
    return sessionOf(await client.callTool({ name, arguments: args }));
  }

  /** The JSON-RPC error a call fails with (the SDK client throws it as McpError). */
  async function callError(
    client: Client,
    name: string,
    args: Record<string, unknown>,
  ): Promise<McpError & { data: AcpErrorData }> {
    const err: unknown = await client.callTool({ name, arguments: args }).then(
      () => {
        throw new Error(`${name} succeeded`);
      },
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(McpError);
    const mcp = err as McpError & { data: AcpErrorData };
    expect(mcp.code).toBe(-32000);
    expectValid('Error', mcp.data);
    return mcp;
  }

  /** One raw JSON-RPC message over HTTP, as an ACP agent without an MCP SDK would send it. */
  async function rpc(credential: string, message: Record<string, unknown>) {
    const res = await request(t.url)
      .post('/mcp')
      .set('Authorization', `Bearer ${credential}`)
      .set('Accept', 'application/json, text/event-stream')
      .send(message);
    expect(res.status).toBe(200);
    return res.body as {
      jsonrpc: string;
      id: number;
      result?: Record<string, unknown>;
      error?: { code: number; message: string; data: AcpErrorData };
    };
  }

  const sessionCount = async (ws: SeededWorkspace): Promise<number> => {
    const [row] = await t.db.query<{ n: number }[]>(
      'SELECT count(*)::int AS n FROM checkout_sessions WHERE seller_agent_id = $1',
      [ws.seller.id],
    );
    return row.n;
  };

  describe('tools/list', () => {
    it('lists the five checkout tools with bundled schemas: meta, id and payload', async () => {
      const { ws } = await world();
      const { tools } = await (await connect(ws.merchantKey)).listTools();
      expect(tools.map((x) => x.name)).toEqual(TOOLS);
      // Bundled: no $ref left anywhere, every schema is served whole.
      expect(JSON.stringify(tools)).not.toContain('$ref');
      const byName = Object.fromEntries(tools.map((x) => [x.name, x.inputSchema]));
      expect(byName.create_checkout_session.required).toEqual(['meta', 'payload']);
      expect(byName.get_checkout_session.required).toEqual(['meta', 'id']);
      expect(byName.get_checkout_session.properties).not.toHaveProperty('payload');
      expect(byName.update_checkout_session.required).toEqual(['meta', 'id', 'payload']);
      expect(byName.complete_checkout_session.required).toEqual(['meta', 'id', 'payload']);
      // A missing cancel payload is valid: the payload is not required.
      expect(byName.cancel_checkout_session.required).toEqual(['meta', 'id']);
      expect(byName.cancel_checkout_session.properties).toHaveProperty('payload');

      const meta = byName.create_checkout_session.properties?.meta as Record<string, unknown>;
      expect(meta).toMatchObject({
        type: 'object',
        required: ['api_version'],
        additionalProperties: true,
      });
      expect(Object.keys(meta.properties as object)).toEqual(
        expect.arrayContaining(['api_version', 'idempotency_key', 'request_id', 'signature']),
      );

      // The payload is the REST request body of openapi.json, with the DTOs' rules.
      const payload = byName.create_checkout_session.properties?.payload as {
        required: string[];
        properties: Record<string, { items?: { properties?: Record<string, unknown> } }>;
      };
      expect(payload.required).toEqual(['line_items', 'currency', 'capabilities']);
      expect(payload.properties.line_items.items?.properties).toHaveProperty('id');
      const complete = byName.complete_checkout_session.properties?.payload as {
        required: string[];
        properties: Record<string, { properties?: Record<string, unknown> }>;
      };
      expect(complete.required).toEqual(['payment_data']);
      expect(complete.properties.payment_data.properties).toHaveProperty('handler_id');
    });

    it('gives an agent credential its own tools and no checkout tools', async () => {
      const { ws } = await world();
      const { tools } = await (await connect(ws.seller.credential)).listTools();
      expect(tools.map((x) => x.name)).toEqual([
        'whoami',
        'find_seller',
        'issue_refund',
        'get_forex_rates',
        'create_forex_file',
        'forex_quote',
        'upload_document',
        'submit_file',
        'file_status',
      ]);
    });
  });

  describe('the official example calls (docs/mcp-binding.md), ids and payment data adapted', () => {
    it('create, get, update, complete and cancel answer with ACP sessions as the JSON-RPC result', async () => {
      const w = await world();
      const key = w.ws.merchantKey;

      // 1. create_checkout_session, with the example's meta, capabilities and fulfillment details.
      const created = await rpc(key, {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'create_checkout_session',
          arguments: {
            meta: {
              api_version: API_VERSION,
              idempotency_key: `idem_${randomUUID()}`,
              user_agent: 'AgentShop/1.0',
            },
            payload: {
              currency: 'inr',
              line_items: [{ id: 'tea' }],
              capabilities: {
                interventions: {
                  supported: ['3ds', 'address_verification'],
                  display_context: 'webview',
                  redirect_context: 'in_app',
                  max_redirects: 1,
                  max_interaction_depth: 1,
                },
              },
              fulfillment_details: {
                name: 'Asha Rao',
                phone_number: '919812345678',
                email: 'asha@example.in',
                address: {
                  name: 'Asha Rao',
                  line_one: '12 MG Road',
                  city: 'Bengaluru',
                  state: 'KA',
                  country: 'IN',
                  postal_code: '560001',
                },
              },
            },
          },
        },
      });
      expect(created).toMatchObject({ jsonrpc: '2.0', id: 1 });
      expect(created.error).toBeUndefined();
      const session = sessionOf(created.result!);
      expectValid('CheckoutSession', session);
      expect(session.status).toBe('ready_for_payment');
      const lineId = session.line_items[0].id;

      // 2. get_checkout_session: meta and id, no payload.
      const got = await rpc(key, {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: {
          name: 'get_checkout_session',
          arguments: { meta: { api_version: API_VERSION }, id: session.id },
        },
      });
      expect(got).toMatchObject({ jsonrpc: '2.0', id: 2 });
      expect(sessionOf(got.result!)).toEqual(session);

      // 3. update_checkout_session selecting a fulfillment option. Adapted: the one option here is
      // the digital fo_digital, in the flat SelectedFulfillmentOption shape of the official schema.
      const updated = await rpc(key, {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: {
          name: 'update_checkout_session',
          arguments: {
            meta: { api_version: API_VERSION },
            id: session.id,
            payload: {
              selected_fulfillment_options: [
                { type: 'digital', option_id: 'fo_digital', item_ids: [lineId] },
              ],
            },
          },
        },
      });
      expect(updated).toMatchObject({ jsonrpc: '2.0', id: 3 });
      const afterUpdate = sessionOf(updated.result!);
      expectValid('CheckoutSession', afterUpdate);
      expect(afterUpdate.status).toBe('ready_for_payment');

      // 4. complete_checkout_session with buyer and payment data (our handler and a vt_ token).
      const token = await insertToken(t, w.ws, { sessionId: session.id, mandateId: w.mandateId });
      const completed = await rpc(key, {
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: {
          name: 'complete_checkout_session',
          arguments: {
            meta: { api_version: API_VERSION, idempotency_key: `idem_${randomUUID()}` },
            id: session.id,
            payload: {
              buyer: { first_name: 'Asha', last_name: 'Rao', email: 'asha@example.in' },
              payment_data: paymentData(token),
            },
          },
        },
      });
      expect(completed).toMatchObject({ jsonrpc: '2.0', id: 4 });
      const done = sessionOf(completed.result!);
      expectValid('CheckoutSessionWithOrder', done);
      expect(done.status).toBe('completed');
      expect(done.order?.checkout_session_id).toBe(session.id);

      // 5. cancel_checkout_session with an intent trace (on another session: this one is completed).
      const other = sessionOf(
        (
          await rpc(key, {
            jsonrpc: '2.0',
            id: 10,
            method: 'tools/call',
            params: {
              name: 'create_checkout_session',
              arguments: { meta: { api_version: API_VERSION }, payload: createPayload() },
            },
          })
        ).result!,
      );
      const canceled = await rpc(key, {
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: {
          name: 'cancel_checkout_session',
          arguments: {
            meta: { api_version: API_VERSION },
            id: other.id,
            payload: {
              intent_trace: {
                reason_code: 'price_sensitivity',
                trace_summary: 'Buyer found a lower price elsewhere.',
              },
            },
          },
        },
      });
      expect(canceled).toMatchObject({ jsonrpc: '2.0', id: 5 });
      const cancelSession = sessionOf(canceled.result!);
      expectValid('CheckoutSession', cancelSession);
      expect(cancelSession.status).toBe('canceled');
      const [row] = await t.db.query<{ reason: string }[]>(
        "SELECT intent_trace->>'reason_code' AS reason FROM checkout_sessions WHERE id = $1",
        [other.id],
      );
      expect(row.reason).toBe('price_sensitivity');
    });
  });

  describe('tools/call with the SDK client', () => {
    it('runs create → update → complete → get, and cancel on another session, as REST does', async () => {
      const w = await world();
      const client = await connect(w.ws.merchantKey);
      const meta = () => ({ api_version: API_VERSION, idempotency_key: idem() });

      const created = await call(client, 'create_checkout_session', {
        meta: meta(),
        payload: createPayload(),
      });
      expectValid('CheckoutSession', created);
      expect(created.status).toBe('ready_for_payment');

      const updated = await call(client, 'update_checkout_session', {
        meta: meta(),
        id: created.id,
        payload: { line_items: [{ id: 'tea' }, { id: 'biscuits', quantity: 2 }] },
      });
      expectValid('CheckoutSession', updated);
      expect(updated.line_items).toHaveLength(2);

      const token = await insertToken(t, w.ws, { sessionId: created.id, mandateId: w.mandateId });
      const completed = await call(client, 'complete_checkout_session', {
        meta: meta(),
        id: created.id,
        payload: { payment_data: paymentData(token) },
      });
      expectValid('CheckoutSessionWithOrder', completed);
      expect(completed.status).toBe('completed');

      const got = await call(client, 'get_checkout_session', {
        meta: { api_version: API_VERSION },
        id: created.id,
      });
      expectValid('CheckoutSessionWithOrder', got);
      // Same service, same answer: the REST GET returns the identical session.
      const rest = await request(t.url)
        .get(`/acp/checkout_sessions/${created.id}`)
        .set(acpHeaders(w.ws.merchantKey))
        .expect(200);
      expect(got).toEqual(rest.body);

      const other = await call(client, 'create_checkout_session', {
        meta: meta(),
        payload: createPayload(),
      });
      // No payload at all is a plain cancel (the binding: servers must not require null).
      const canceled = await call(client, 'cancel_checkout_session', {
        meta: { api_version: API_VERSION },
        id: other.id,
      });
      expectValid('CheckoutSession', canceled);
      expect(canceled.status).toBe('canceled');
      const again = await callError(client, 'cancel_checkout_session', {
        meta: { api_version: API_VERSION },
        id: other.id,
      });
      expect(again.data).toMatchObject({ type: 'invalid_request', code: 'invalid_state' });
    });
  });

  describe('meta.idempotency_key', () => {
    it('replays a create with the same key and payload, refuses another payload, and shares the key with REST', async () => {
      const w = await world();
      const client = await connect(w.ws.merchantKey);
      const key = idem();
      const before = await sessionCount(w.ws);
      const args = {
        meta: { api_version: API_VERSION, idempotency_key: key },
        payload: createPayload(),
      };

      const first = await call(client, 'create_checkout_session', args);
      const replay = await call(client, 'create_checkout_session', args);
      expect(replay).toEqual(first);
      expect(await sessionCount(w.ws)).toBe(before + 1);

      // The same key with another payload: the REST refusal, as -32000.
      const conflict = await callError(client, 'create_checkout_session', {
        ...args,
        payload: createPayload({ line_items: [{ id: 'biscuits' }] }),
      });
      const restConflict = await request(t.url)
        .post('/acp/checkout_sessions')
        .set(acpHeaders(w.ws.merchantKey, key))
        .send(createPayload({ line_items: [{ id: 'biscuits' }] }));
      expect(restConflict.status).toBeGreaterThanOrEqual(400);
      expect(conflict.data).toEqual({ ...restConflict.body, ...paramOf(restConflict.body) });
      expect(conflict.message).toContain(conflict.data.message);

      // One store: REST with the same key and body replays the session the MCP call created.
      const rest = await request(t.url)
        .post('/acp/checkout_sessions')
        .set(acpHeaders(w.ws.merchantKey, key))
        .send(createPayload())
        .expect(201);
      expect(rest.headers['idempotent-replayed']).toBe('true');
      expect(rest.body.id).toBe(first.id);
      expect(await sessionCount(w.ws)).toBe(before + 1);
    });

    it('replays a complete: one payment, the same completed session', async () => {
      const w = await world();
      const client = await connect(w.ws.merchantKey);
      const created = await call(client, 'create_checkout_session', {
        meta: { api_version: API_VERSION },
        payload: createPayload(),
      });
      const token = await insertToken(t, w.ws, { sessionId: created.id, mandateId: w.mandateId });
      const args = {
        meta: { api_version: API_VERSION, idempotency_key: idem() },
        id: created.id,
        payload: { payment_data: paymentData(token) },
      };
      const first = await call(client, 'complete_checkout_session', args);
      const replay = await call(client, 'complete_checkout_session', args);
      expect(first.status).toBe('completed');
      expect(replay).toEqual(first);
      const [row] = await t.db.query<{ n: number }[]>(
        'SELECT count(*)::int AS n FROM payment_intents WHERE seller_agent_id = $1',
        [w.ws.seller.id],
      );
      expect(row.n).toBe(1);
    });

    it('stores a refused call like REST: the same key replays the same error', async () => {
      const w = await world();
      const client = await connect(w.ws.merchantKey);
      const args = {
        meta: { api_version: API_VERSION, idempotency_key: idem() },
        payload: createPayload({ line_items: [{ id: 'no_such_sku' }] }),
      };
      const first = await callError(client, 'create_checkout_session', args);
      expect(first.data).toMatchObject({
        type: 'invalid_request',
        code: 'invalid_item_id',
        param: '$.payload.line_items[0].id',
      });
      const again = await callError(client, 'create_checkout_session', args);
      expect(again.data).toEqual(first.data);
    });
  });

  describe('errors', () => {
    it('answers a missing payload field as -32000 with the flat ACP error, param under $.payload', async () => {
      const w = await world();
      const before = await sessionCount(w.ws);
      const res = await rpc(w.ws.merchantKey, {
        jsonrpc: '2.0',
        id: 6,
        method: 'tools/call',
        params: {
          name: 'create_checkout_session',
          arguments: {
            meta: { api_version: API_VERSION, idempotency_key: idem() },
            payload: { line_items: [{ id: 'tea' }], capabilities: {} },
          },
        },
      });
      expect(res.result).toBeUndefined();
      expect(res.error).toEqual({
        code: -32000,
        message: res.error!.data.message,
        data: expect.objectContaining({
          type: 'invalid_request',
          code: 'missing',
          param: '$.payload.currency',
        }) as unknown,
      });
      expectValid('Error', res.error!.data);
      expect(await sessionCount(w.ws)).toBe(before);
    });

    it('answers an unknown session, meta and envelope problems as ACP errors', async () => {
      const w = await world();
      const client = await connect(w.ws.merchantKey);
      const missing = await callError(client, 'get_checkout_session', {
        meta: { api_version: API_VERSION },
        id: `cs_${randomToken(16)}`,
      });
      const rest = await request(t.url)
        .get(`/acp/checkout_sessions/cs_${randomToken(16)}`)
        .set(acpHeaders(w.ws.merchantKey));
      expect(missing.data.type).toBe(rest.body.type);
      expect(missing.data.code).toBe(rest.body.code);

      const noVersion = await callError(client, 'create_checkout_session', {
        meta: {},
        payload: createPayload(),
      });
      expect(noVersion.data).toMatchObject({
        type: 'invalid_request',
        code: 'missing_api_version',
        param: '$.meta.api_version',
      });
      const noMeta = await callError(client, 'get_checkout_session', { id: 'cs_x' });
      expect(noMeta.data.code).toBe('missing_api_version');
      const oldVersion = await callError(client, 'get_checkout_session', {
        meta: { api_version: '2025-09-29' },
        id: 'cs_x',
      });
      expect(oldVersion.data.code).toBe('unsupported_api_version');

      const noId = await callError(client, 'get_checkout_session', {
        meta: { api_version: API_VERSION },
      });
      expect(noId.data).toMatchObject({ code: 'missing', param: '$.id' });
      const noPayload = await callError(client, 'complete_checkout_session', {
        meta: { api_version: API_VERSION },
        id: 'cs_x',
      });
      expect(noPayload.data).toMatchObject({ code: 'missing', param: '$.payload' });

      // An unknown field of the closed REST body is refused as on REST; unknown meta fields are not.
      const unknownField = await callError(client, 'create_checkout_session', {
        meta: { api_version: API_VERSION, future_header: 'x' },
        payload: createPayload({ surprise: true }),
      });
      expect(unknownField.data).toMatchObject({ code: 'invalid', param: '$.payload.surprise' });
    });

    it('refuses a payment with a token for another session as REST does', async () => {
      const w = await world();
      const client = await connect(w.ws.merchantKey);
      const a = await call(client, 'create_checkout_session', {
        meta: { api_version: API_VERSION },
        payload: createPayload(),
      });
      const b = await call(client, 'create_checkout_session', {
        meta: { api_version: API_VERSION },
        payload: createPayload(),
      });
      const token = await insertToken(t, w.ws, { sessionId: a.id, mandateId: w.mandateId });
      const err = await callError(client, 'complete_checkout_session', {
        meta: { api_version: API_VERSION, idempotency_key: idem() },
        id: b.id,
        payload: { payment_data: paymentData(token) },
      });
      const rest = await request(t.url)
        .post(`/acp/checkout_sessions/${b.id}/complete`)
        .set(acpHeaders(w.ws.merchantKey, idem()))
        .send({ payment_data: paymentData(token) });
      expect(rest.status).toBeGreaterThanOrEqual(400);
      expect(err.data).toEqual({ ...rest.body, ...paramOf(rest.body) });
    });

    it('answers an unknown tool with -32602', async () => {
      const w = await world();
      const res = await rpc(w.ws.merchantKey, {
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'whoami', arguments: {} },
      });
      expect(res.error?.code).toBe(-32602);
    });
  });

  it('is advertised in the discovery document as the mcp transport', async () => {
    const res = await request(t.url).get('/.well-known/acp.json').expect(200);
    expect(res.body.transports).toEqual(expect.arrayContaining(['rest', 'mcp']));
  });

  describe('credentials', () => {
    it('refuses a buyer protocol key (403), an API key and unknown keys (401) before MCP starts', async () => {
      const w = await world();
      const post = (secret: string) =>
        request(t.url)
          .post('/mcp')
          .set('Authorization', `Bearer ${secret}`)
          .set('Accept', 'application/json, text/event-stream')
          .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
      const buyer = await post(w.ws.buyerKey);
      expect(buyer.status).toBe(403);
      expect(buyer.body.error.code).toBe('wrong_role');
      for (const secret of [w.ws.apiKey, `acpk_${randomToken(32)}`]) {
        const res = await post(secret);
        expect(res.status).toBe(401);
        expect(res.body.error.code).toBe('unauthorized');
      }
    });

    it("does not show another merchant's session", async () => {
      const a = await world();
      const b = await world();
      const created = await call(await connect(a.ws.merchantKey), 'create_checkout_session', {
        meta: { api_version: API_VERSION },
        payload: createPayload(),
      });
      const err = await callError(await connect(b.ws.merchantKey), 'get_checkout_session', {
        meta: { api_version: API_VERSION },
        id: created.id,
      });
      expect(err.data.type).toBe('invalid_request');
    });
  });
});

/** REST names body fields from `$`; MCP from `$.payload` (the binding's own example). */
function paramOf(body: { param?: string }): { param?: string } {
  if (body.param === undefined) {
    return {};
  }
  if (body.param === 'Idempotency-Key') {
    return { param: '$.meta.idempotency_key' };
  }
  return body.param.startsWith('$') ? { param: `$.payload${body.param.slice(1)}` } : {};
}
