import { randomUUID } from 'node:crypto';

import request from 'supertest';

import { MandatesService } from '../../src/mandates/mandates.service';
import { createCheckoutSession } from '../factories/session.factory';
import { ACP_DELEGATE_SCHEMA, isValid } from '../support/acp-schema';
import { startApp, TestApp } from '../support/app';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const PATH = '/acp/agentic_commerce/delegate_payment';

const validateResponse = (body: unknown) =>
  isValid('DelegatePaymentResponse', body, ACP_DELEGATE_SCHEMA);
const validateError = (body: unknown) => isValid('Error', body, ACP_DELEGATE_SCHEMA);

describe('POST /acp/agentic_commerce/delegate_payment', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let other: SeededWorkspace;
  let mandates: MandatesService;

  beforeAll(async () => {
    t = await startApp();
    ws = await seedWorkspace(t);
    other = await seedWorkspace(t);
    mandates = t.get(MandatesService);
  });
  afterAll(() => t.close());
  afterEach(() => t.clock.reset());

  const at = (msFromNow: number) => new Date(t.clock.now().getTime() + msFromNow).toISOString();
  const idem = () => `idem-${randomUUID()}`;

  /** A standing mandate of the seed buyer, authorised by the seed person unless told otherwise. */
  async function mandate(
    over: {
      cap?: number;
      payees?: string[] | null;
      validUntilMs?: number;
      authorise?: boolean;
      owner?: SeededWorkspace;
    } = {},
  ) {
    const owner = over.owner ?? ws;
    const res = await request(t.url)
      .post('/v1/pay/mandates')
      .set('Authorization', `Bearer ${owner.apiKey}`)
      .send({
        buyer_agent_id: owner.buyer.id,
        per_payment_cap_paise: over.cap ?? 500_000,
        payee_agent_ids: over.payees === undefined ? [ws.seller.id] : over.payees,
        valid_until: at(over.validUntilMs ?? 30 * DAY),
        rail: 'upi_reserve_pay',
      });
    expect(res.status).toBe(201);
    if (over.authorise !== false) {
      await mandates.authorise(owner.workspaceId, res.body.id, owner.personId);
    }
    return res.body.id as string;
  }

  async function body(
    over: {
      mandateId?: string | null;
      allowance?: Record<string, unknown>;
      extra?: Record<string, unknown>;
    } = {},
  ) {
    const session = over.allowance?.checkout_session_id ? null : await createCheckoutSession(t, ws);
    return {
      payment_method:
        over.mandateId === null
          ? { type: 'svc_mandate' }
          : { type: 'svc_mandate', mandate_id: over.mandateId ?? (await mandate()) },
      allowance: {
        reason: 'one_time',
        max_amount: 45_000,
        currency: 'inr',
        checkout_session_id: session?.id,
        merchant_id: ws.seller.id,
        expires_at: at(HOUR),
        ...over.allowance,
      },
      risk_signals: [],
      metadata: {},
      ...over.extra,
    };
  }

  const post = (payload: unknown, key = idem(), secret = ws.buyerKey) =>
    request(t.url)
      .post(PATH)
      .set(acpHeaders(secret, key))
      .send(payload as object);

  async function count(
    table: 'delegated_tokens' | 'mandates',
    workspaceId = ws.workspaceId,
  ): Promise<number> {
    const [{ n }] = await t.db.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM ${table} WHERE workspace_id = $1`,
      [workspaceId],
    );
    return n;
  }

  function expectRefusal(res: request.Response, code: string, param: string) {
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ type: 'invalid_request', code, message: expect.any(String), param });
  }

  describe('success', () => {
    it('mints a token on an active mandate: 201, schema-valid body, headers and the token row', async () => {
      const mandateId = await mandate();
      const payload = await body({
        mandateId,
        extra: { metadata: { order_ref: 'A-17', status: 'spoofed' } },
      });
      const key = idem();
      const res = await post(payload, key).set('Request-Id', 'req-client-42');
      expect(res.status).toBe(201);
      expect(validateResponse(res.body)).toBe(true);
      expect(Object.keys(res.body).sort()).toEqual(['created', 'id', 'metadata']);
      expect(res.body.id).toMatch(/^vt_[A-Za-z0-9]+$/);
      expect(new Date(res.body.created).toISOString()).toBe(res.body.created);
      expect(res.body.metadata).toEqual({
        order_ref: 'A-17',
        source: 'svc',
        merchant_id: ws.seller.id,
        checkout_session_id: payload.allowance.checkout_session_id,
        mandate_id: mandateId,
        idempotency_key: key,
      });
      expect(res.headers['request-id']).toBe('req-client-42');
      expect(res.headers['idempotency-key']).toBe(key);
      const [token] = await t.db.query('SELECT * FROM delegated_tokens WHERE id = $1', [
        res.body.id,
      ]);
      expect(token).toMatchObject({
        workspace_id: ws.workspaceId,
        buyer_agent_id: ws.buyer.id,
        protocol_key_id: ws.buyerKeyId,
        mandate_id: mandateId,
        checkout_session_id: payload.allowance.checkout_session_id,
        merchant_agent_id: ws.seller.id,
        max_amount_paise: '45000',
        currency: 'INR', // stored upper case; the wire says 'inr'
        status: 'usable',
        metadata: res.body.metadata,
      });
      expect(new Date(token.expires_at).toISOString()).toBe(payload.allowance.expires_at);
    });

    it('accepts a billing address and risk signals', async () => {
      const payload = await body({
        extra: {
          billing_address: {
            name: 'Asha Rao',
            line_one: '12 MG Road',
            city: 'Bengaluru',
            state: 'KA',
            country: 'IN',
            postal_code: '560001',
          },
          risk_signals: [{ type: 'card_testing', score: 3, action: 'authorized' }],
        },
      });
      const res = await post(payload);
      expect(res.status).toBe(201);
    });

    it('replays the same token for the same key and body, minting nothing new', async () => {
      const payload = await body();
      const key = idem();
      const first = await post(payload, key);
      expect(first.status).toBe(201);
      const tokens = await count('delegated_tokens');
      const second = await post(payload, key);
      expect(second.status).toBe(201);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(second.body).toEqual(first.body);
      expect(await count('delegated_tokens')).toBe(tokens);
      const conflict = await post({ ...payload, metadata: { changed: 'yes' } }, key);
      expect(conflict.status).toBe(422);
      expect(conflict.body.code).toBe('idempotency_conflict');
    });

    it('without a mandate_id creates a one-time mandate scoped to the allowance, pending the person', async () => {
      const payload = await body({
        mandateId: null,
        allowance: { max_amount: 120_000, expires_at: at(2 * DAY) },
      });
      const mandatesBefore = await count('mandates');
      const res = await post(payload);
      expect(res.status).toBe(201);
      expect(validateResponse(res.body)).toBe(true);
      const mandateId = res.body.metadata.mandate_id;
      expect(res.body.metadata).toMatchObject({
        status: 'pending_authorisation',
        authorization_url: `${t.url}/app/mandates/${mandateId}/authorize`,
        mandate_id: expect.stringMatching(/^mdt_/),
      });
      expect(await count('mandates')).toBe(mandatesBefore + 1);
      const [m] = await t.db.query('SELECT * FROM mandates WHERE id = $1', [mandateId]);
      expect(m).toMatchObject({
        workspace_id: ws.workspaceId,
        buyer_agent_id: ws.buyer.id,
        kind: 'one_time',
        rail: 'upi_otm',
        per_payment_cap_paise: '120000',
        payee_agent_ids: [ws.seller.id],
        status: 'pending_authorisation',
      });
      expect(new Date(m.valid_until).toISOString()).toBe(payload.allowance.expires_at);
      const [token] = await t.db.query(
        'SELECT mandate_id, status FROM delegated_tokens WHERE id = $1',
        [res.body.id],
      );
      expect(token).toEqual({ mandate_id: mandateId, status: 'usable' });
    });

    it('flags a named mandate that still awaits authorisation', async () => {
      const mandateId = await mandate({ authorise: false });
      const res = await post(await body({ mandateId }));
      expect(res.status).toBe(201);
      expect(res.body.metadata).toMatchObject({
        mandate_id: mandateId,
        status: 'pending_authorisation',
        authorization_url: `${t.url}/app/mandates/${mandateId}/authorize`,
      });
    });
  });

  describe('cards and payment methods', () => {
    const card = {
      type: 'card',
      card_number_type: 'fpan',
      number: '4242424242424242',
      exp_month: '11',
      exp_year: '2030',
      cvc: '223',
      display_card_funding_type: 'credit',
      metadata: {},
    };

    it('refuses a card with invalid_card and stores nothing', async () => {
      const payload = { ...(await body()), payment_method: card };
      const tokens = await count('delegated_tokens');
      const mandatesBefore = await count('mandates');
      const res = await post(payload);
      expectRefusal(res, 'invalid_card', '$.payment_method.type');
      expect(validateError(res.body)).toBe(true);
      expect(res.text).not.toContain('4242');
      expect(await count('delegated_tokens')).toBe(tokens);
      expect(await count('mandates')).toBe(mandatesBefore);
    });

    it('refuses card fields smuggled into a svc_mandate method', async () => {
      const res = await post({
        ...(await body()),
        payment_method: { type: 'svc_mandate', number: '4242424242424242' },
      });
      expectRefusal(res, 'invalid_card', '$.payment_method.type');
      expect(res.text).not.toContain('4242');
    });

    it('refuses any other type with invalid_card, saying only svc_mandate is accepted', async () => {
      const res = await post({ ...(await body()), payment_method: { type: 'upi_collect' } });
      expectRefusal(res, 'invalid_card', '$.payment_method.type');
      expect(res.body.message).toContain('svc_mandate');
      const missing = await post({ ...(await body()), payment_method: {} });
      expectRefusal(missing, 'invalid_card', '$.payment_method.type');
    });

    it('keeps the svc_mandate object closed', async () => {
      const unknown = await post({
        ...(await body()),
        payment_method: { type: 'svc_mandate', vpa: 'asha@okbank' },
      });
      // Shape failures go out as invalid_card, the official enum's validation code (docs/acp.md §7).
      expectRefusal(unknown, 'invalid_card', '$.payment_method.vpa');
      const badId = await post({
        ...(await body()),
        payment_method: { type: 'svc_mandate', mandate_id: 'mandate-1' },
      });
      expectRefusal(badId, 'invalid_card', '$.payment_method.mandate_id');
    });
  });

  describe('request shape', () => {
    it.each([
      ['an unknown top-level field', { extra: { customer: 'x' } }, '$.customer'],
      ['an unknown allowance field', { allowance: { tip: 1 } }, '$.allowance.tip'],
      ['a fractional max_amount', { allowance: { max_amount: 10.5 } }, '$.allowance.max_amount'],
      ['a non-string metadata value', { extra: { metadata: { n: 1 } } }, '$.metadata'],
      ['missing risk_signals', { extra: { risk_signals: undefined } }, '$.risk_signals'],
      [
        'a bad risk signal',
        { extra: { risk_signals: [{ type: 'velocity', score: 1, action: 'blocked' }] } },
        '$.risk_signals[0].type',
      ],
      [
        'a two-letter country over two letters',
        {
          extra: {
            billing_address: {
              name: 'A',
              line_one: 'B',
              city: 'C',
              state: 'D',
              country: 'IND',
              postal_code: '1',
            },
          },
        },
        '$.billing_address.country',
      ],
      ['a null billing address', { extra: { billing_address: null } }, '$.billing_address'],
    ])('400 for %s', async (_name, over, param) => {
      const res = await post(await body(over));
      expect(res.status).toBe(400);
      expect(res.body.param).toBe(param);
      expect(res.body.code).toBe('invalid_card');
      expect(validateError(res.body)).toBe(true);
    });

    it('requires an Idempotency-Key', async () => {
      const res = await request(t.url)
        .post(PATH)
        .set(acpHeaders(ws.buyerKey))
        .send(await body());
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('idempotency_key_required');
    });

    it('refuses a merchant key with 403', async () => {
      const res = await post(await body(), idem(), ws.merchantKey);
      expect(res.status).toBe(403);
      // Our wrong_role, folded into the auth deviation code on delegate_payment (docs/acp.md §7).
      expect(res.body.code).toBe('unauthorized');
      expect(res.body.message).toContain('buyer protocol key');
    });
  });

  describe('allowance rules', () => {
    it.each([
      ['reason other than one_time', { reason: 'recurring' }, '$.allowance.reason'],
      ['currency other than inr', { currency: 'usd' }, '$.allowance.currency'],
      ['upper-case INR', { currency: 'INR' }, '$.allowance.currency'],
      ['zero max_amount', { max_amount: 0 }, '$.allowance.max_amount'],
      ['negative max_amount', { max_amount: -100 }, '$.allowance.max_amount'],
      ['expires_at in the past', { expires_at: 'PAST' }, '$.allowance.expires_at'],
      ['expires_at more than 7 days ahead', { expires_at: 'LATE' }, '$.allowance.expires_at'],
      ['expires_at not RFC 3339', { expires_at: '2030-01-01 10:00' }, '$.allowance.expires_at'],
      [
        'expires_at on an impossible date',
        { expires_at: '2030-02-30T10:00:00Z' },
        '$.allowance.expires_at',
      ],
      [
        'an unknown checkout session',
        { checkout_session_id: 'cs_unknown' },
        '$.allowance.checkout_session_id',
      ],
      [
        'a merchant that is not the session seller',
        { merchant_id: 'OTHER_SELLER' },
        '$.allowance.merchant_id',
      ],
    ])('invalid_allowance for %s', async (_name, over, param) => {
      const times: Record<string, string> = {
        PAST: at(-60_000),
        LATE: at(7 * DAY + 60_000),
        OTHER_SELLER: other.seller.id,
      };
      const allowance = Object.fromEntries(
        Object.entries(over).map(([k, v]) => [k, typeof v === 'string' && times[v] ? times[v] : v]),
      );
      const tokens = await count('delegated_tokens');
      const res = await post(await body({ allowance }));
      expectRefusal(res, 'invalid_allowance', param);
      expect(await count('delegated_tokens')).toBe(tokens);
    });

    it('accepts expires_at exactly 7 days ahead', async () => {
      const res = await post(await body({ allowance: { expires_at: at(7 * DAY - 1000) } }));
      expect(res.status).toBe(201);
    });

    it.each([
      ['canceled', { status: 'canceled' as const }],
      ['completed', { status: 'completed' as const }],
      ['past its expiry', { expiresAt: new Date(Date.now() - 60_000) }],
    ])('invalid_allowance for a session that is %s', async (_name, over) => {
      const session = await createCheckoutSession(t, ws, over);
      const res = await post(await body({ allowance: { checkout_session_id: session.id } }));
      expectRefusal(res, 'invalid_allowance', '$.allowance.checkout_session_id');
    });

    it('accepts a session that is not ready for payment yet', async () => {
      const session = await createCheckoutSession(t, ws, { status: 'not_ready_for_payment' });
      const res = await post(await body({ allowance: { checkout_session_id: session.id } }));
      expect(res.status).toBe(201);
    });
  });

  describe('mandate rules', () => {
    it('mandate_not_found for an unknown mandate and for another buyer agent’s mandate', async () => {
      const unknown = await post(await body({ mandateId: 'mdt_doesnotexist000' }));
      expectRefusal(unknown, 'mandate_not_found', '$.payment_method.mandate_id');
      const theirs = await mandate({ owner: other });
      const res = await post(await body({ mandateId: theirs }));
      expectRefusal(res, 'mandate_not_found', '$.payment_method.mandate_id');
    });

    it('invalid_allowance for a revoked mandate and for an expired one', async () => {
      const revoked = await mandate();
      await mandates.revoke(ws.workspaceId, revoked, { type: 'person', id: ws.personId });
      expectRefusal(
        await post(await body({ mandateId: revoked })),
        'invalid_allowance',
        '$.payment_method.mandate_id',
      );

      const shortLived = await mandate({ validUntilMs: 2 * HOUR });
      t.clock.advance(3 * HOUR);
      expectRefusal(
        await post(await body({ mandateId: shortLived })),
        'invalid_allowance',
        '$.payment_method.mandate_id',
      );
    });

    it('mandate_cap_exceeded when max_amount is above the per-payment cap', async () => {
      const mandateId = await mandate({ cap: 40_000 });
      const res = await post(await body({ mandateId, allowance: { max_amount: 40_001 } }));
      expectRefusal(res, 'mandate_cap_exceeded', '$.allowance.max_amount');
      const atCap = await post(await body({ mandateId, allowance: { max_amount: 40_000 } }));
      expect(atCap.status).toBe(201);
    });

    it('invalid_allowance when the merchant is not on the mandate’s seller list', async () => {
      const mandateId = await mandate({ payees: [other.seller.id] });
      const res = await post(await body({ mandateId }));
      expectRefusal(res, 'invalid_allowance', '$.allowance.merchant_id');
      const anySeller = await mandate({ payees: null });
      expect((await post(await body({ mandateId: anySeller }))).status).toBe(201);
    });

    it('refuses (does not clamp) a token that would outlive the mandate', async () => {
      const mandateId = await mandate({ validUntilMs: 2 * HOUR });
      const res = await post(await body({ mandateId, allowance: { expires_at: at(3 * HOUR) } }));
      expectRefusal(res, 'invalid_allowance', '$.allowance.expires_at');
      const inside = await post(await body({ mandateId, allowance: { expires_at: at(HOUR) } }));
      expect(inside.status).toBe(201);
    });

    it('refuses a second token on a one-time mandate that has already paid', async () => {
      const first = await post(await body({ mandateId: null }));
      const oneTime = first.body.metadata.mandate_id as string;
      await t.db.query(
        `UPDATE delegated_tokens SET status = 'used', used_at = now() WHERE id = $1`,
        [first.body.id],
      );
      const again = await post(
        await body({ mandateId: oneTime, allowance: { expires_at: at(30 * 60_000) } }),
      );
      expectRefusal(again, 'invalid_allowance', '$.payment_method.mandate_id');
      expect(again.body.message).toContain('already paid');
    });
  });
});
