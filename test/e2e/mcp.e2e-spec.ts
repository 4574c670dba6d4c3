import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';

import { AccountsService } from '../../src/accounts/accounts.service';
import { randomToken } from '../../src/common/ids';
import { bearer, payFreeFormQuote } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { startApp, TestApp } from '../support/app';
import { keyPair, SeededWorkspace, seedWorkspace, signHeaders } from '../support/seed';

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

interface ObjectSchema {
  type: string;
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
  additionalProperties?: boolean;
}

interface SellerPageOut {
  sellers: { agent_id: string; offers: unknown[] }[];
  has_more: boolean;
  next_cursor: string | null;
}

interface RefundOut {
  id: string;
  approval_id: string;
  next_step: string;
  replayed: boolean;
}

const structured = <T>(r: CallToolResult): T => r.structuredContent as T;

describe('MCP server (/mcp)', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await startApp();
    ws = await seedWorkspace(t);
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });

  afterAll(async () => {
    await t.close();
  });

  async function connect(credential: string, opts: { fetch?: Fetch } = {}): Promise<Client> {
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${credential}` } },
      fetch: opts.fetch,
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  async function call(
    client: Client,
    name: string,
    args: Record<string, unknown>,
  ): Promise<CallToolResult> {
    return (await client.callTool({ name, arguments: args })) as CallToolResult;
  }

  function textOf(result: CallToolResult): string {
    const first = result.content[0];
    return first?.type === 'text' ? first.text : '';
  }

  /** A settled payment from ws.buyer to ws.seller (below the approval threshold). */
  async function settledIntent(amountPaise = 50_000): Promise<string> {
    const mandateId = await createMandate(t, { workspaceId: ws.workspaceId, agentId: ws.buyer.id });
    const paid = await payFreeFormQuote(t, {
      seller: ws.seller,
      buyer: ws.buyer,
      mandateId,
      amountPaise,
    });
    expect(paid.intent.status).toBe('settled');
    return paid.intent.id;
  }

  async function refundRows(
    intentId: string,
  ): Promise<{ id: string; status: string; amount_paise: string }[]> {
    return t.db.query(
      'SELECT id, status, amount_paise::text FROM refunds WHERE intent_id = $1 ORDER BY created_at',
      [intentId],
    );
  }

  async function putListing(credential: string, agentId: string, offers: object[]): Promise<void> {
    await request(t.url)
      .put(`/v1/pay/agents/${agentId}/listing`)
      .set(bearer(credential))
      .send({ listed: true, offers })
      .expect(200);
  }

  describe('authentication', () => {
    it('refuses a request without a bearer with 401 and a JSON error', async () => {
      const res = await request(t.url)
        .post('/mcp')
        .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(res.body.error).toMatchObject({ type: 'invalid_request', code: 'unauthorized' });
    });

    it('refuses an unknown agent credential, an unknown protocol key and an API key with 401', async () => {
      for (const secret of [`agc_${randomToken(32)}`, `acpk_${randomToken(32)}`, ws.apiKey]) {
        const res = await request(t.url)
          .post('/mcp')
          .set(bearer(secret))
          .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
        expect(res.status).toBe(401);
        expect(res.body.error.code).toBe('unauthorized');
      }
    });

    it('refuses a buyer protocol key with 403 wrong_role (the checkout tools are the merchant key)', async () => {
      const res = await request(t.url)
        .post('/mcp')
        .set(bearer(ws.buyerKey))
        .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('wrong_role');
    });

    it('refuses a rotated (revoked) agent credential', async () => {
      const accounts = t.get(AccountsService);
      const actor = { type: 'person' as const, id: ws.personId };
      const agent = await accounts.createAgent(
        ws.workspaceId,
        { name: 'Rotating', role: 'seller' },
        actor,
      );
      await accounts.rotateAgentCredential(ws.workspaceId, agent.id, actor);
      const res = await request(t.url)
        .post('/mcp')
        .set(bearer(agent.credential!))
        .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
      expect(res.status).toBe(401);
    });

    it('makes the SDK client fail to connect with a bad bearer', async () => {
      const client = new Client({ name: 'e2e', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer agc_${randomToken(32)}` } },
      });
      await expect(client.connect(transport)).rejects.toMatchObject({
        code: 401,
        message: /unauthorized/,
      });
      await expect(
        new Client({ name: 'e2e', version: '1.0.0' }).connect(
          new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`)),
        ),
      ).rejects.toMatchObject({ code: 401 });
    });

    it('requires a signature from an agent with a registered public key, and accepts a signed client', async () => {
      const accounts = t.get(AccountsService);
      const actor = { type: 'person' as const, id: ws.personId };
      const agent = await accounts.createAgent(
        ws.workspaceId,
        { name: 'Signing seller', role: 'seller' },
        actor,
      );
      const { privateKey, publicPem } = keyPair('ed25519');
      await accounts.setAgentPublicKey(ws.workspaceId, agent.id, publicPem, actor);

      const unsigned = await request(t.url)
        .post('/mcp')
        .set(bearer(agent.credential!))
        .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
      expect(unsigned.status).toBe(401);
      expect(unsigned.body.error.code).toBe('invalid_signature');

      const signingFetch: Fetch = (url, init) => {
        const u = new URL(String(url));
        const body =
          typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
        const headers = new Headers(init?.headers);
        const sig = signHeaders(
          privateKey,
          'ed25519',
          init?.method ?? 'GET',
          `${u.pathname}${u.search}`,
          body,
        );
        headers.set('Signature', sig.Signature);
        headers.set('Timestamp', sig.Timestamp);
        return fetch(url, { ...init, headers });
      };
      const client = await connect(agent.credential!, { fetch: signingFetch });
      const me = await call(client, 'whoami', {});
      expect(me.structuredContent).toMatchObject({ agent_id: agent.id, role: 'seller' });
    });
  });

  describe('transport', () => {
    it('answers GET and DELETE with a 405 JSON-RPC error (stateless: no stream, no session)', async () => {
      for (const method of ['get', 'delete'] as const) {
        const res = await request(t.url)[method]('/mcp').set(bearer(ws.seller.credential));
        expect(res.status).toBe(405);
        expect(res.headers.allow).toBe('POST');
        expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
      }
    });

    it('issues no session id', async () => {
      const res = await request(t.url)
        .post('/mcp')
        .set(bearer(ws.seller.credential))
        .set('Accept', 'application/json, text/event-stream')
        .send({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'curl', version: '1' },
          },
        });
      expect(res.status).toBe(200);
      expect(res.headers['mcp-session-id']).toBeUndefined();
      expect(res.body.result.serverInfo.name).toBe('agent-payments');
    });
  });

  describe('tools/list', () => {
    it('lists whoami, find_seller and issue_refund with precise input schemas', async () => {
      const client = await connect(ws.seller.credential);
      const { tools } = await client.listTools();
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
      const byName = Object.fromEntries(tools.map((x) => [x.name, x]));

      const find = byName.find_seller.inputSchema as ObjectSchema;
      expect(find.additionalProperties).toBe(false);
      expect(find.required ?? []).toEqual([]);
      expect(find.properties.category).toMatchObject({ type: 'string', maxLength: 100 });
      expect(find.properties.category.pattern).toBeDefined();
      expect(find.properties.category.description).toMatch(/sub-categories/);
      expect(find.properties.limit).toMatchObject({
        type: 'integer',
        minimum: 1,
        maximum: 50,
        default: 10,
      });
      expect(find.properties.query).toMatchObject({ type: 'string', maxLength: 100 });
      expect(find.properties.starting_after).toMatchObject({ type: 'string' });
      expect(byName.find_seller.outputSchema?.properties).toHaveProperty('next_cursor');
      expect(byName.find_seller.annotations?.readOnlyHint).toBe(true);

      const refund = byName.issue_refund.inputSchema as ObjectSchema;
      expect(refund.required).toEqual(['intent_id']);
      expect(refund.additionalProperties).toBe(false);
      expect(refund.properties.intent_id).toMatchObject({ type: 'string' });
      expect(refund.properties.intent_id.pattern).toMatch(/pi_/);
      expect(refund.properties.amount_paise).toMatchObject({
        type: 'integer',
        exclusiveMinimum: 0,
      });
      expect(refund.properties.reason).toMatchObject({
        type: 'string',
        minLength: 1,
        maxLength: 200,
      });
      expect(refund.properties.idempotency_key).toMatchObject({ type: 'string', maxLength: 255 });
      expect(byName.issue_refund.description).toMatch(/pending_approval/);

      expect(byName.whoami.inputSchema).toMatchObject({ type: 'object' });
    });
  });

  describe('whoami', () => {
    it('returns the calling agent as JSON text and structuredContent', async () => {
      const client = await connect(ws.buyer.credential);
      const result = await call(client, 'whoami', {});
      expect(result.isError).toBeFalsy();
      const expected = {
        agent_id: ws.buyer.id,
        name: 'Buyer assistant',
        role: 'buyer',
        workspace_id: ws.workspaceId,
      };
      expect(result.structuredContent).toEqual(expected);
      expect(JSON.parse(textOf(result))).toEqual(expected);
    });
  });

  describe('find_seller', () => {
    // Categories unique to this run, so sellers of other tests never match.
    const root = `mcp${randomToken(6).toLowerCase()}`;
    let teaSeller: SeededWorkspace;
    let snackSeller: SeededWorkspace;

    beforeAll(async () => {
      teaSeller = await seedWorkspace(t);
      snackSeller = await seedWorkspace(t);
      await putListing(teaSeller.seller.credential, teaSeller.seller.id, [
        {
          sku: 'assam-1kg',
          name: 'Assam tea 1 kg',
          unit_paise: 45_000,
          category: `${root}.tea.black`,
        },
        { sku: 'sencha', name: 'Sencha 100 g', unit_paise: 30_000, category: `${root}.tea.green` },
        { sku: 'mug', name: 'Clay mug', unit_paise: 15_000, category: `${root}.kitchen` },
      ]);
      await putListing(snackSeller.seller.credential, snackSeller.seller.id, [
        { sku: 'samosa', name: 'Samosa box', unit_paise: 12_000, category: `${root}.snacks` },
      ]);
    });

    it('returns the listed sellers of a category and its sub-categories, with the matching offers', async () => {
      const client = await connect(ws.buyer.credential);
      const result = await call(client, 'find_seller', { category: `${root}.tea` });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({
        sellers: [
          {
            agent_id: teaSeller.seller.id,
            name: 'Chai Co',
            offers: [
              {
                sku: 'assam-1kg',
                name: 'Assam tea 1 kg',
                unit_paise: 45_000,
                category: `${root}.tea.black`,
              },
              {
                sku: 'sencha',
                name: 'Sencha 100 g',
                unit_paise: 30_000,
                category: `${root}.tea.green`,
              },
            ],
          },
        ],
        has_more: false,
        next_cursor: null,
      });
      expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
    });

    it('matches free text and pages with next_cursor', async () => {
      const client = await connect(ws.buyer.credential);
      const bySamosa = await call(client, 'find_seller', { category: root, query: 'SAMOSA' });
      expect(structured<SellerPageOut>(bySamosa).sellers.map((s) => s.agent_id)).toEqual([
        snackSeller.seller.id,
      ]);

      const first = await call(client, 'find_seller', { category: root, limit: 1 });
      const page1 = structured<SellerPageOut>(first);
      expect(page1.sellers).toHaveLength(1);
      expect(page1.has_more).toBe(true);
      expect(page1.sellers[0].agent_id).toBe(snackSeller.seller.id); // newest first
      const second = await call(client, 'find_seller', {
        category: root,
        limit: 1,
        starting_after: page1.next_cursor,
      });
      const page2 = structured<SellerPageOut>(second);
      expect(page2.sellers.map((s) => s.agent_id)).toEqual([teaSeller.seller.id]);
      expect(page2.next_cursor).toBeNull();
    });

    it('reports bad arguments as tool errors naming the field', async () => {
      const client = await connect(ws.buyer.credential);
      const badCategory = await call(client, 'find_seller', { category: 'Food Tea' });
      expect(badCategory.isError).toBe(true);
      expect(textOf(badCategory)).toMatch(/category/);
      const badLimit = await call(client, 'find_seller', { limit: 51 });
      expect(badLimit.isError).toBe(true);
      expect(textOf(badLimit)).toMatch(/limit/);
      const badCursor = await call(client, 'find_seller', { starting_after: 'not-a-cursor' });
      expect(badCursor.isError).toBe(true);
      expect(textOf(badCursor)).toMatch(/^starting_after is not a cursor/);
      const unknown = await call(client, 'find_seller', { colour: 'red' });
      expect(unknown.isError).toBe(true);
      expect(textOf(unknown)).toMatch(/colour/);
    });
  });

  describe('issue_refund', () => {
    it('creates a refund that waits for a person, and says where it is approved', async () => {
      const intentId = await settledIntent(50_000);
      const client = await connect(ws.seller.credential);
      const result = await call(client, 'issue_refund', {
        intent_id: intentId,
        amount_paise: 20_000,
        reason: 'Damaged in transit',
      });
      expect(result.isError).toBeFalsy();
      const out = structured<RefundOut>(result);
      expect(out).toMatchObject({
        object: 'refund',
        intent_id: intentId,
        status: 'pending_approval',
        amount_paise: 20_000,
        reason: 'Damaged in transit',
        seller_agent_id: ws.seller.id,
        buyer_agent_id: ws.buyer.id,
        approval_url: `${t.config.appUrl}/approvals`,
        replayed: false,
      });
      expect(out.id).toMatch(/^rf_/);
      expect(out.next_step).toMatch(/approve/);
      expect(JSON.parse(textOf(result))).toEqual(out);

      expect(await refundRows(intentId)).toEqual([
        { id: out.id, status: 'pending_approval', amount_paise: '20000' },
      ]);
      const approvals: { kind: string; status: string }[] = await t.db.query(
        'SELECT kind, status FROM approvals WHERE id = $1 AND subject_id = $2',
        [out.approval_id, out.id],
      );
      expect(approvals).toEqual([{ kind: 'refund', status: 'pending' }]);
    });

    it('defaults to the whole refundable remainder', async () => {
      const intentId = await settledIntent(40_000);
      const client = await connect(ws.seller.credential);
      const result = await call(client, 'issue_refund', { intent_id: intentId });
      expect(result.structuredContent).toMatchObject({
        status: 'pending_approval',
        amount_paise: 40_000,
        reason: null,
      });
    });

    it('returns the same refund for a repeated idempotency_key, and refuses the key with other arguments', async () => {
      const intentId = await settledIntent(50_000);
      const client = await connect(ws.seller.credential);
      const args = {
        intent_id: intentId,
        amount_paise: 10_000,
        idempotency_key: `key-${randomToken(8)}`,
      };
      const first = await call(client, 'issue_refund', args);
      const second = await call(client, 'issue_refund', args);
      expect(first.isError).toBeFalsy();
      expect(second.isError).toBeFalsy();
      expect(structured<RefundOut>(second).id).toBe(structured<RefundOut>(first).id);
      expect(structured<RefundOut>(first).replayed).toBe(false);
      expect(structured<RefundOut>(second).replayed).toBe(true);
      expect(await refundRows(intentId)).toHaveLength(1);

      const reused = await call(client, 'issue_refund', { ...args, amount_paise: 5_000 });
      expect(reused.isError).toBe(true);
      expect(textOf(reused)).toMatch(/^idempotency_key: /);
      expect(await refundRows(intentId)).toHaveLength(1);
    });

    it('makes one refund from concurrent calls with the same idempotency_key', async () => {
      const intentId = await settledIntent(50_000);
      const [a, b] = await Promise.all([
        connect(ws.seller.credential),
        connect(ws.seller.credential),
      ]);
      const args = { intent_id: intentId, idempotency_key: `key-${randomToken(8)}` };
      const results = await Promise.all([
        call(a, 'issue_refund', args),
        call(b, 'issue_refund', args),
      ]);
      expect(results.every((r) => !r.isError)).toBe(true);
      expect(new Set(results.map((r) => structured<RefundOut>(r).id)).size).toBe(1);
      expect(await refundRows(intentId)).toHaveLength(1);
    });

    it('refuses the buyer of the intent, naming intent_id, and creates nothing', async () => {
      const intentId = await settledIntent();
      const client = await connect(ws.buyer.credential);
      const result = await call(client, 'issue_refund', { intent_id: intentId });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      expect(textOf(result)).toMatch(/^intent_id: .*seller/);
      expect(await refundRows(intentId)).toEqual([]);
    });

    it("refuses another seller's intent as not found and creates nothing", async () => {
      const intentId = await settledIntent();
      const other = await seedWorkspace(t);
      const client = await connect(other.seller.credential);
      const result = await call(client, 'issue_refund', { intent_id: intentId, amount_paise: 100 });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^intent_id: .*\(code: intent_not_found\)$/);
      expect(await refundRows(intentId)).toEqual([]);
    });

    it('refuses more than the refundable remainder, naming amount_paise', async () => {
      const intentId = await settledIntent(30_000);
      const client = await connect(ws.seller.credential);
      const result = await call(client, 'issue_refund', {
        intent_id: intentId,
        amount_paise: 30_001,
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^amount_paise: .*30000 paise/);
      expect(await refundRows(intentId)).toEqual([]);
    });

    it('reports invalid arguments as tool errors naming the field', async () => {
      const intentId = await settledIntent();
      const client = await connect(ws.seller.credential);
      const negative = await call(client, 'issue_refund', {
        intent_id: intentId,
        amount_paise: -5,
      });
      expect(negative.isError).toBe(true);
      expect(textOf(negative)).toMatch(/amount_paise/);
      const fractional = await call(client, 'issue_refund', {
        intent_id: intentId,
        amount_paise: 10.5,
      });
      expect(fractional.isError).toBe(true);
      expect(textOf(fractional)).toMatch(/amount_paise/);
      const missing = await call(client, 'issue_refund', { amount_paise: 100 });
      expect(missing.isError).toBe(true);
      expect(textOf(missing)).toMatch(/intent_id/);
      const notAnIntent = await call(client, 'issue_refund', { intent_id: 'qt_123' });
      expect(notAnIntent.isError).toBe(true);
      expect(textOf(notAnIntent)).toMatch(/intent_id/);
      const longReason = await call(client, 'issue_refund', {
        intent_id: intentId,
        reason: 'x'.repeat(201),
      });
      expect(longReason.isError).toBe(true);
      expect(textOf(longReason)).toMatch(/reason/);
      expect(await refundRows(intentId)).toEqual([]);
    });
  });
});
