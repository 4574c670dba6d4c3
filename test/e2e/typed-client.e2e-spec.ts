import type { Middleware } from 'openapi-fetch';
import request from 'supertest';

import {
  createPaymentsClient,
  ok,
  PaymentsApiError,
  toPaymentsApiError,
} from '../../clients/typescript';
import { createMandate } from '../factories/mandate.factory';
import { startApp, TestApp } from '../support/app';
import { expectContractResponse } from '../support/contract-validator';
import { SeededWorkspace, seedWorkspace } from '../support/seed';
import { FlowInput, runPayLink, runPurchase } from '../typed-client/flow';

/**
 * The typed client package (clients/typescript: types generated from openapi/openapi.json,
 * openapi-fetch calls) against the real app: a full ACP purchase, a refund request and a pay link
 * (test/typed-client/flow.ts, which the root tsconfig type-checks against the committed schema),
 * every response checked against the contract's schema for its operation and status.
 * test/unit/openapi/client-fresh.spec.ts fails when the generated schema is stale.
 */
describe('typed client (clients/typescript)', () => {
  let t: TestApp;
  let seller: SeededWorkspace;
  let buyer: SeededWorkspace;
  let input: FlowInput;
  const seen: string[] = [];
  const sent: {
    method: string;
    path: string;
    idempotencyKey: string | null;
    version: string | null;
  }[] = [];
  const middleware: Middleware = {
    onRequest({ request: req, schemaPath }) {
      sent.push({
        method: req.method,
        path: schemaPath,
        idempotencyKey: req.headers.get('Idempotency-Key'),
        version: req.headers.get('API-Version'),
      });
      return undefined;
    },
    async onResponse({ request: req, response, schemaPath }) {
      const body: unknown = await response.clone().json();
      expectContractResponse(schemaPath, req.method, response.status, body);
      seen.push(`${req.method} ${schemaPath} ${response.status}`);
      return undefined;
    },
  };

  beforeAll(async () => {
    t = await startApp();
    seller = await seedWorkspace(t);
    buyer = await seedWorkspace(t);
    await request(t.url)
      .put(`/v1/pay/agents/${seller.seller.id}/listing`)
      .set('Authorization', `Bearer ${seller.seller.credential}`)
      .send({
        listed: true,
        offers: [
          { sku: 'sku_tea_1kg', name: 'Assam tea 1 kg', unit_paise: 45_000, category: 'food.tea' },
        ],
      })
      .expect(200);
    input = {
      baseUrl: t.url,
      merchantProtocolKey: seller.merchantKey,
      buyerProtocolKey: buyer.buyerKey,
      sellerAgentCredential: seller.seller.credential,
      sellerAgentId: seller.seller.id,
      buyerAgentId: buyer.buyer.id,
      mandateId: await createMandate(t, {
        workspaceId: buyer.workspaceId,
        agentId: buyer.buyer.id,
      }),
      sku: 'sku_tea_1kg',
      middleware,
    };
  }, 60_000);
  afterAll(() => t?.close());
  beforeEach(() => {
    seen.length = 0;
    sent.length = 0;
  });

  it('runs a purchase (create → update → delegate_payment → complete → get), the receipt and a refund request', async () => {
    const result = await runPurchase(input);

    expect(seen).toEqual([
      'POST /acp/checkout_sessions 201',
      'POST /acp/checkout_sessions/{checkout_session_id} 200',
      'POST /acp/agentic_commerce/delegate_payment 201',
      'POST /acp/checkout_sessions/{checkout_session_id}/complete 200',
      'GET /acp/checkout_sessions/{checkout_session_id} 200',
      'GET /acp/receipts/{receipt_id} 200',
      'POST /v1/pay/intents/{id}/refunds 201',
    ]);
    expect(result.session.status).toBe('completed');
    expect(result.session.order).toMatchObject({
      checkout_session_id: result.session.id,
      permalink_url: expect.stringMatching(/^http/),
    });
    expect(result.refund.intent_id).toBe(result.receipt.intent_id);
    // The client set API-Version on /acp and a fresh Idempotency-Key on every POST, none on a GET.
    for (const s of sent) {
      expect(s.version).toBe(s.path.startsWith('/acp/') ? '2026-04-17' : null);
      expect(s.idempotencyKey === null).toBe(s.method !== 'POST');
    }
    const keys = sent.flatMap((s) => (s.idempotencyKey ? [s.idempotencyKey] : []));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('pays a pay link: the seller quotes, the public pay API pays it, the quote is paid', async () => {
    const result = await runPayLink(input);

    expect(seen).toEqual([
      'POST /v1/pay/quotes 201',
      'GET /v1/public/pay/quotes/{quote_id} 200',
      'POST /v1/public/pay/quotes/{quote_id}/checkout 200',
      'POST /v1/public/pay/quotes/{quote_id}/checkout/{checkout_id}/complete 200',
      'GET /v1/pay/quotes/{id} 200',
    ]);
    expect(result.quote.pay_url).toContain(`/pay/${result.quote.id}`);
    expect(result.checkout.status).toBe('paid');
    expect(result.paidQuote.status).toBe('paid');
  });

  it('a retried call reuses its Idempotency-Key: the service answers with the first answer', async () => {
    const merchant = createPaymentsClient({ baseUrl: t.url, credential: seller.merchantKey });
    const key = `retry-${Date.now()}`;
    const call = () =>
      merchant.POST('/acp/checkout_sessions', {
        params: { header: { 'Idempotency-Key': key } },
        body: { line_items: [{ id: 'sku_tea_1kg' }], currency: 'inr', capabilities: {} },
      });
    const first = await ok(call());
    const again = await call();
    expect(again.response.headers.get('Idempotent-Replayed')).toBe('true');
    expect(again.data?.id).toBe(first.id);
    // Left out, quantity is 1 (the contract and the validation agree).
    expect(first.line_items[0].quantity).toBe(1);
  });

  it('surfaces errors as PaymentsApiError in both shapes (/acp flat, /v1 nested)', async () => {
    const merchant = createPaymentsClient({ baseUrl: t.url, credential: seller.merchantKey });
    const acp = await ok(
      merchant.GET('/acp/checkout_sessions/{checkout_session_id}', {
        params: { path: { checkout_session_id: 'cs_missing' } },
      }),
    ).catch((e: unknown) => e);
    expect(acp).toBeInstanceOf(PaymentsApiError);
    expect(acp).toMatchObject({ status: 404, type: 'invalid_request' });

    const sellerClient = createPaymentsClient({
      baseUrl: t.url,
      credential: seller.seller.credential,
    });
    const v1 = await ok(
      sellerClient.GET('/v1/pay/quotes/{id}', { params: { path: { id: 'qt_missing' } } }),
    ).catch((e: unknown) => e);
    expect(v1).toBeInstanceOf(PaymentsApiError);
    expect(v1).toMatchObject({ status: 404, requestId: expect.stringMatching(/^req_/) });

    const unauthorised = await ok(
      createPaymentsClient({ baseUrl: t.url, credential: 'acpk_nope' }).GET(
        '/acp/orders/{order_id}',
        { params: { path: { order_id: 'ord_x' } } },
      ),
    ).catch((e: unknown) => e);
    expect(unauthorised).toMatchObject({ status: 401 });
  });

  it('retries what the service says to retry (409 in flight, 503) with the same key, then answers', async () => {
    let calls = 0;
    const keys: (string | null)[] = [];
    const flaky = createPaymentsClient({
      baseUrl: t.url,
      credential: seller.seller.credential,
      maxRetryDelayMs: 10,
      fetch: async (req) => {
        calls++;
        keys.push(req.headers.get('Idempotency-Key'));
        if (calls === 1) {
          return new Response(
            JSON.stringify({ error: { type: 'invalid_request', code: 'idempotency_in_flight' } }),
            { status: 409, headers: { 'Content-Type': 'application/json', 'Retry-After': '1' } },
          );
        }
        if (calls === 2) {
          return new Response('{}', { status: 503, headers: { 'Retry-After': '0' } });
        }
        return fetch(req);
      },
    });
    const quote = await ok(
      flaky.POST('/v1/pay/quotes', {
        body: {
          buyer_agent_id: buyer.buyer.id,
          category: 'food.tea',
          items: [{ name: 'Assam tea 1 kg', unit_paise: 45_000 }],
        },
      }),
    );
    expect(quote.id).toMatch(/^qt_/);
    expect(calls).toBe(3);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reads the three error shapes into one error', () => {
    expect(
      toPaymentsApiError(
        400,
        { type: 'invalid_request', code: 'x', message: 'm', param: '$.a' },
        'r1',
      ),
    ).toMatchObject({ status: 400, code: 'x', message: 'm', param: '$.a', requestId: 'r1' });
    expect(
      toPaymentsApiError(
        404,
        {
          error: { type: 'invalid_request', code: 'not_found', message: 'm', request_id: 'req_1' },
        },
        null,
      ),
    ).toMatchObject({ code: 'not_found', requestId: 'req_1' });
    expect(
      toPaymentsApiError(
        400,
        { ucp: {}, messages: [{ type: 'error', code: 'invalid', content: 'bad', path: '$.x' }] },
        null,
      ),
    ).toMatchObject({ code: 'invalid', message: 'bad', param: '$.x' });
  });
});
