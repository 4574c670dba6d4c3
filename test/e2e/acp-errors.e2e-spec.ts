import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

import request from 'supertest';

import { randomToken } from '../../src/common/ids';
import { insertMandate, insertToken } from '../factories/payment-fixtures';
import {
  ACP_CHECKOUT_SCHEMA,
  ACP_DELEGATE_SCHEMA,
  ACP_SCHEMA_DIR,
  contractValidator,
  expectValid,
  officialAcpSchemasAvailable,
} from '../support/acp-schema';
import { startApp, TestApp } from '../support/app';
import { withKeyHeld } from '../support/key-lock';
import { acpHeaders, keyPair, SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * Every error of both ACP APIs, provoked over HTTP and checked against the official Error
 * schemas (docs/acp.md §7): checkout's Error (free `code`, closed `type`) and delegate_payment's
 * Error, whose `code` is a closed enum. delegate_payment may send only that enum plus the short
 * list of deliberate deviations (docs/acp.md "Deviations"); for those the body is checked against
 * the official schema with the code swapped for an enum value, so everything else in it is proven
 * schema-valid, and the code itself against the documented list.
 */

/** The official delegate_payment Error.code enum (asserted equal to the schema's when present). */
const DELEGATE_ENUM = [
  'invalid_card',
  'duplicate_request',
  'idempotency_conflict',
  'too_many_requests',
  'idempotency_key_required',
  'idempotency_in_flight',
];
/** Our documented deviations on delegate_payment (docs/acp.md "Deviations"). */
const DELEGATE_DEVIATIONS = [
  'missing_api_version',
  'unsupported_api_version',
  'unauthorized',
  'invalid_allowance',
  'mandate_not_found',
  'mandate_cap_exceeded',
];
const CHECKOUT_TYPES = ['invalid_request', 'processing_error', 'service_unavailable'];
const DELEGATE_TYPES = [
  'invalid_request',
  'rate_limit_exceeded',
  'processing_error',
  'service_unavailable',
];

const CHECKOUT = '/acp/checkout_sessions';
const DELEGATE = '/acp/agentic_commerce/delegate_payment';
const TOKEN_PARAM = '$.payment_data.instrument.credential.token';

type Api = 'checkout' | 'delegate';

const seen: Record<Api, Set<string>> = { checkout: new Set(), delegate: new Set() };

/** Status, JSON, schema-valid for its API, code allowed there; returns the body. */
function expectAcpError(
  api: Api,
  res: request.Response,
  status: number,
  code: string,
  param?: string,
): Record<string, unknown> {
  expect({ status: res.status, code: (res.body as { code?: unknown }).code }).toEqual({
    status,
    code,
  });
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.body as Record<string, unknown>;
  expect(typeof body.message).toBe('string');
  expect((body.message as string).length).toBeGreaterThan(0);
  if (param !== undefined) {
    expect(body.param).toBe(param);
  }
  seen[api].add(code);
  if (api === 'checkout') {
    expect(CHECKOUT_TYPES).toContain(body.type);
    expectValid('Error', body, ACP_CHECKOUT_SCHEMA);
    return body;
  }
  expect(DELEGATE_TYPES).toContain(body.type);
  if (DELEGATE_ENUM.includes(code)) {
    expectValid('Error', body, ACP_DELEGATE_SCHEMA);
  } else {
    expect(DELEGATE_DEVIATIONS).toContain(code);
    // Our contract takes the body as it is; the official schema all but the deviating code.
    expect(contractValidator('Error', ACP_DELEGATE_SCHEMA)(body)).toBe(true);
    expectValid('Error', { ...body, code: 'invalid_card' }, ACP_DELEGATE_SCHEMA);
  }
  return body;
}

describe('ACP errors: every error of both APIs against the official Error schemas', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let signedWs: SeededWorkspace;
  let mandateId: string;
  const idem = () => `idem-${randomUUID()}`;

  beforeAll(async () => {
    t = await startApp();
    ws = await seedWorkspace(t);
    const pair = keyPair('ed25519');
    signedWs = await seedWorkspace(t, {
      merchantPublicKey: pair.publicPem,
      buyerPublicKey: pair.publicPem,
    });
    await request(t.url)
      .put(`/v1/pay/agents/${ws.seller.id}/listing`)
      .set('Authorization', `Bearer ${ws.seller.credential}`)
      .send({
        listed: true,
        offers: [{ sku: 'tea', name: 'Assam tea 1 kg', unit_paise: 45_000, category: 'food.tea' }],
      })
      .expect(200);
    mandateId = await insertMandate(t, ws, { perPaymentCapPaise: 100_000 });
  });
  afterAll(() => t.close());
  afterEach(() => t.clock.reset());

  const createBody = { line_items: [{ id: 'tea' }], currency: 'inr', capabilities: {} };

  const post = (path: string, secret: string, body?: unknown, key: string | null = idem()) => {
    const req = request(t.url)
      .post(path)
      .set(acpHeaders(secret, key ?? undefined));
    return body === undefined ? req : req.send(body as object);
  };

  async function openSession(): Promise<string> {
    const res = await post(CHECKOUT, ws.merchantKey, createBody);
    expect(res.status).toBe(201);
    return (res.body as { id: string }).id;
  }

  async function delegateBody(
    over: { allowance?: Record<string, unknown>; payment_method?: unknown } = {},
  ) {
    return {
      payment_method: over.payment_method ?? { type: 'svc_mandate', mandate_id: mandateId },
      allowance: {
        reason: 'one_time',
        max_amount: 45_000,
        currency: 'inr',
        checkout_session_id: over.allowance?.checkout_session_id ?? (await openSession()),
        merchant_id: ws.seller.id,
        expires_at: new Date(t.clock.now().getTime() + 3600_000).toISOString(),
        ...over.allowance,
      },
      risk_signals: [],
      metadata: {},
    };
  }

  const payment = (token: string, instrumentType = 'svc_mandate') => ({
    payment_data: {
      handler_id: 'svc_upi_mandate',
      instrument: { type: instrumentType, credential: { type: 'svc_delegated_token', token } },
    },
  });

  it('the enum in this test is the official one', () => {
    if (!officialAcpSchemasAvailable()) {
      return;
    }
    const schema = JSON.parse(
      readFileSync(resolve(ACP_SCHEMA_DIR, ACP_DELEGATE_SCHEMA), 'utf8'),
    ) as { $defs: { Error: { properties: { code: { enum: string[] } } } } };
    expect(schema.$defs.Error.properties.code.enum).toEqual(DELEGATE_ENUM);
  });

  describe.each([
    ['checkout' as const, CHECKOUT, () => createBody, () => ws.merchantKey, () => ws.buyerKey],
    [
      'delegate' as const,
      DELEGATE,
      () => ({ payment_method: { type: 'svc_mandate' } }),
      () => ws.buyerKey,
      () => ws.merchantKey,
    ],
  ])('%s: the shared pipeline', (api, path, body, rightKey, wrongRoleKey) => {
    const authCode = (ours: string) => (api === 'delegate' ? 'unauthorized' : ours);
    const shapeCode = (ours: string) => (api === 'delegate' ? 'invalid_card' : ours);

    it('401 without a credential, and for an unknown one', async () => {
      const none = await request(t.url)
        .post(path)
        .set({ 'API-Version': '2026-04-17', 'Idempotency-Key': idem() })
        .send(body());
      expectAcpError(api, none, 401, 'unauthorized');
      const unknown = await post(path, `acpk_${randomToken(32)}`, body());
      expectAcpError(api, unknown, 401, 'unauthorized');
    });

    it('403 for a credential of the wrong kind and a protocol key of the wrong role', async () => {
      for (const secret of [ws.apiKey, ws.seller.credential]) {
        expectAcpError(api, await post(path, secret, body()), 403, authCode('wrong_credential'));
      }
      expectAcpError(api, await post(path, wrongRoleKey(), body()), 403, authCode('wrong_role'));
    });

    it('401 for a missing signature when the key registered a public key', async () => {
      const secret = api === 'checkout' ? signedWs.merchantKey : signedWs.buyerKey;
      expectAcpError(api, await post(path, secret, body()), 401, authCode('invalid_signature'));
    });

    it('400 for a missing or unsupported API-Version, with supported_versions', async () => {
      const missing = await request(t.url)
        .post(path)
        .set({ Authorization: `Bearer ${rightKey()}`, 'Idempotency-Key': idem() })
        .send(body());
      const b1 = expectAcpError(api, missing, 400, 'missing_api_version');
      expect(b1.supported_versions).toEqual(['2026-04-17']);
      const old = await request(t.url)
        .post(path)
        .set({ ...acpHeaders(rightKey(), idem()), 'API-Version': '2025-09-29' })
        .send(body());
      const b2 = expectAcpError(api, old, 400, 'unsupported_api_version');
      expect(b2.supported_versions).toEqual(['2026-04-17']);
    });

    it('400 for a missing Idempotency-Key and for one over 255 characters', async () => {
      expectAcpError(
        api,
        await post(path, rightKey(), body(), null),
        400,
        'idempotency_key_required',
      );
      expectAcpError(
        api,
        await post(path, rightKey(), body(), 'k'.repeat(256)),
        400,
        shapeCode('invalid'),
        'Idempotency-Key',
      );
    });

    it('422 idempotency_conflict for the same key with another body', async () => {
      const key = idem();
      const first = await post(path, rightKey(), { bogus: 1 }, key);
      expect(first.status).toBe(400); // a validation refusal is not stored (Deviations)
      const real = api === 'checkout' ? createBody : await delegateBody();
      expect((await post(path, rightKey(), real, key)).status).toBe(201);
      const other = api === 'checkout' ? { ...createBody, currency: 'INR' } : { ...real, x: 1 };
      expectAcpError(api, await post(path, rightKey(), other, key), 422, 'idempotency_conflict');
    });

    it('409 idempotency_in_flight with Retry-After while the first request holds the key', async () => {
      const key = idem();
      const keyId = api === 'checkout' ? ws.merchantKeyId : ws.buyerKeyId;
      const res = await withKeyHeld(t, { ownerId: `protocol_key:${keyId}`, path, key }, () =>
        post(path, rightKey(), body(), key),
      );
      expectAcpError(api, res, 409, 'idempotency_in_flight');
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    });

    it('400 for malformed JSON, an unknown field, a wrong type and a missing field', async () => {
      const malformed = await request(t.url)
        .post(path)
        .set({ ...acpHeaders(rightKey(), idem()), 'Content-Type': 'application/json' })
        .send('{"line_items": [');
      expectAcpError(api, malformed, 400, shapeCode('invalid_json'));
      expectAcpError(
        api,
        await post(path, rightKey(), { ...body(), surprise: true }),
        400,
        shapeCode('invalid'),
        '$.surprise',
      );
      if (api === 'checkout') {
        expectAcpError(
          api,
          await post(path, rightKey(), { ...createBody, currency: 7 }),
          400,
          'invalid',
          '$.currency',
        );
        expectAcpError(
          api,
          await post(path, rightKey(), { currency: 'inr', capabilities: {} }),
          400,
          'missing',
          '$.line_items',
        );
      } else {
        const full = await delegateBody();
        expectAcpError(
          api,
          await post(path, rightKey(), { ...full, risk_signals: 'none' }),
          400,
          'invalid_card',
          '$.risk_signals',
        );
        expectAcpError(
          api,
          await post(path, rightKey(), { ...full, risk_signals: undefined }),
          400,
          'invalid_card',
          '$.risk_signals',
        );
      }
    });

    it('415 for a body that is not JSON, 413 for one over the limit', async () => {
      const text = await request(t.url)
        .post(path)
        .set({ ...acpHeaders(rightKey(), idem()), 'Content-Type': 'text/plain' })
        .send('hello');
      expectAcpError(api, text, 415, shapeCode('unsupported_media_type'));
      const huge = await request(t.url)
        .post(path)
        .set({ ...acpHeaders(rightKey(), idem()), 'Content-Type': 'application/json' })
        .send(JSON.stringify({ pad: 'x'.repeat(300 * 1024) }));
      expectAcpError(api, huge, 413, shapeCode('request_too_large'));
    });

    it('404 for a route that does not exist under the API', async () => {
      const res = await request(t.url).get(path).set(acpHeaders(rightKey()));
      if (api === 'checkout') {
        // GET /acp/checkout_sessions (no id) is no route.
        expectAcpError(api, res, 404, 'route_not_found');
      } else {
        expectAcpError(api, res, 404, 'invalid_card');
      }
    });
  });

  describe('checkout: business errors', () => {
    it('400 invalid_item_id for an unknown SKU', async () => {
      expectAcpError(
        'checkout',
        await post(CHECKOUT, ws.merchantKey, { ...createBody, line_items: [{ id: 'nope' }] }),
        400,
        'invalid_item_id',
        '$.line_items[0].id',
      );
    });

    it('404 not_found for an unknown session (get, update, complete, cancel)', async () => {
      const get = await request(t.url)
        .get(`${CHECKOUT}/cs_unknown`)
        .set(acpHeaders(ws.merchantKey));
      expectAcpError('checkout', get, 404, 'not_found');
      for (const suffix of ['', '/complete', '/cancel']) {
        const res = await post(`${CHECKOUT}/cs_unknown${suffix}`, ws.merchantKey, {});
        expectAcpError(
          'checkout',
          res,
          suffix === '/complete' ? 400 : 404,
          suffix === '/complete' ? 'missing' : 'not_found',
        );
      }
    });

    it('400 invalid_state for update after cancel, 405 invalid_state for a second cancel', async () => {
      const id = await openSession();
      await post(`${CHECKOUT}/${id}/cancel`, ws.merchantKey).expect(200);
      expectAcpError(
        'checkout',
        await post(`${CHECKOUT}/${id}`, ws.merchantKey, {}),
        400,
        'invalid_state',
      );
      expectAcpError(
        'checkout',
        await post(`${CHECKOUT}/${id}/cancel`, ws.merchantKey),
        405,
        'invalid_state',
      );
    });

    it('complete: payment_data shape errors, and cards refused', async () => {
      const id = await openSession();
      const complete = (b: unknown) => post(`${CHECKOUT}/${id}/complete`, ws.merchantKey, b);
      expectAcpError(
        'checkout',
        await complete({ payment_data: {} }),
        400,
        'missing',
        '$.payment_data.handler_id',
      );
      expectAcpError(
        'checkout',
        await complete({ payment_data: { purchase_order_number: 'PO-1' } }),
        400,
        'unsupported',
        '$.payment_data.purchase_order_number',
      );
      expectAcpError(
        'checkout',
        await complete(payment('vt_x', 'card')),
        400,
        'invalid',
        '$.payment_data.instrument.type',
      );
    });

    it('complete: every token error', async () => {
      const complete = async (id: string, token: string) =>
        post(`${CHECKOUT}/${id}/complete`, ws.merchantKey, payment(token));
      const s1 = await openSession();
      expectAcpError(
        'checkout',
        await complete(s1, 'vt_unknown'),
        400,
        'token_invalid',
        TOKEN_PARAM,
      );
      const used = await insertToken(t, ws, { sessionId: s1, mandateId, status: 'used' });
      expectAcpError('checkout', await complete(s1, used), 400, 'token_used', TOKEN_PARAM);
      const revoked = await insertToken(t, ws, { sessionId: s1, mandateId, status: 'revoked' });
      expectAcpError('checkout', await complete(s1, revoked), 400, 'token_revoked', TOKEN_PARAM);
      const s2 = await openSession();
      const elsewhere = await insertToken(t, ws, { sessionId: s2, mandateId });
      expectAcpError(
        'checkout',
        await complete(s1, elsewhere),
        400,
        'token_session_mismatch',
        TOKEN_PARAM,
      );
      const small = await insertToken(t, ws, { sessionId: s1, mandateId, maxAmountPaise: 100 });
      expectAcpError('checkout', await complete(s1, small), 400, 'allowance_exceeded', TOKEN_PARAM);
      const soon = await insertToken(t, ws, {
        sessionId: s1,
        mandateId,
        expiresAt: new Date(t.clock.now().getTime() + 60_000),
      });
      t.clock.advance(60_000);
      expectAcpError('checkout', await complete(s1, soon), 400, 'token_expired', TOKEN_PARAM);
      t.clock.reset();
      const pending = await insertMandate(t, ws, { status: 'pending_authorisation' });
      const s3 = await openSession();
      const waiting = await insertToken(t, ws, { sessionId: s3, mandateId: pending });
      expectAcpError(
        'checkout',
        await complete(s3, waiting),
        402,
        'requires_buyer_review',
        TOKEN_PARAM,
      );
    });
  });

  describe('delegate_payment: business errors', () => {
    it('400 invalid_card for a card, any card field, or another payment method', async () => {
      for (const pm of [
        { type: 'card', number: '4242424242424242', exp_month: '12', exp_year: '2030' },
        { type: 'svc_mandate', number: '4242424242424242' },
        { type: 'bank_transfer' },
      ]) {
        const res = await post(DELEGATE, ws.buyerKey, await delegateBody({ payment_method: pm }));
        const b = expectAcpError('delegate', res, 400, 'invalid_card', '$.payment_method.type');
        expect(JSON.stringify(b)).not.toContain('4242');
      }
    });

    it('400 invalid_allowance, mandate_not_found and mandate_cap_exceeded', async () => {
      expectAcpError(
        'delegate',
        await post(DELEGATE, ws.buyerKey, await delegateBody({ allowance: { currency: 'usd' } })),
        400,
        'invalid_allowance',
        '$.allowance.currency',
      );
      expectAcpError(
        'delegate',
        await post(
          DELEGATE,
          ws.buyerKey,
          await delegateBody({ allowance: { checkout_session_id: 'cs_unknown' } }),
        ),
        400,
        'invalid_allowance',
        '$.allowance.checkout_session_id',
      );
      expectAcpError(
        'delegate',
        await post(
          DELEGATE,
          ws.buyerKey,
          await delegateBody({
            payment_method: { type: 'svc_mandate', mandate_id: 'mdt_unknown0000' },
          }),
        ),
        400,
        'mandate_not_found',
        '$.payment_method.mandate_id',
      );
      expectAcpError(
        'delegate',
        await post(
          DELEGATE,
          ws.buyerKey,
          await delegateBody({ allowance: { max_amount: 200_000 } }),
        ),
        400,
        'mandate_cap_exceeded',
        '$.allowance.max_amount',
      );
    });
  });

  describe('rate limits', () => {
    let limited: TestApp;
    beforeAll(async () => {
      limited = await startApp({
        queuePrefix: `t${randomToken(8)}`,
        rateLimitCredentialPerSecond: 1,
        // A count must not fail open because a loaded machine answered late (rate-limit.e2e-spec).
        rateLimitRedisTimeoutMs: 5_000,
      });
    });
    afterAll(() => limited.close());

    it.each([
      [
        'checkout' as const,
        () => request(limited.url).get(`${CHECKOUT}/cs_x`).set(acpHeaders(ws.merchantKey)),
      ],
      [
        'delegate' as const,
        () => request(limited.url).post(DELEGATE).set(acpHeaders(ws.buyerKey, idem())).send({}),
      ],
    ])('429 too_many_requests on %s, with Retry-After', async (api, send) => {
      let res = await send();
      for (let i = 0; i < 5 && res.status !== 429; i++) {
        res = await send();
      }
      const body = expectAcpError(api, res, 429, 'too_many_requests');
      expect(body.type).toBe(api === 'checkout' ? 'service_unavailable' : 'rate_limit_exceeded');
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    });
  });

  afterAll(() => {
    // Every delegate_payment code sent is in the official enum or the documented deviations.
    for (const code of seen.delegate) {
      expect([...DELEGATE_ENUM, ...DELEGATE_DEVIATIONS]).toContain(code);
    }
  });
});
