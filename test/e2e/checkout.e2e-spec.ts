import { randomUUID } from 'node:crypto';

import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import request from 'supertest';

import { ApprovalsService } from '../../src/approvals/approvals.service';
import { ChainService } from '../../src/chains/chain.service';
import {
  insertMandate,
  insertToken,
  MandateFixture,
  TokenFixture,
} from '../factories/payment-fixtures';
import { expectValid, isValid } from '../support/acp-schema';
import { startApp, TestApp } from '../support/app';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * ACP 2026-04-17 merchant checkout (docs/acp.md §4–§5, §7–§9). Every session body the
 * service returns is validated against the official JSON Schema (CheckoutSession, or
 * CheckoutSessionWithOrder once completed). Mandates and tokens come from test/factories.
 */
describe('ACP checkout', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());
  afterEach(() => t.clock.reset());

  const OFFERS = [
    { sku: 'tea', name: 'Assam tea 1 kg', unit_paise: 45_000, category: 'food.tea' },
    { sku: 'biscuits', name: 'Biscuits', unit_paise: 2_500, category: 'food.snacks' },
    // ₹2,500: above the ₹2,000 always-ask threshold.
    { sku: 'kettle', name: 'Electric kettle', unit_paise: 250_000, category: 'home.kitchen' },
    // Ends in 51 paise: the sandbox rail fails the debit with insufficient_funds.
    { sku: 'flaky', name: 'Sandbox failure trigger', unit_paise: 1_051, category: 'test.sandbox' },
  ];

  interface World {
    ws: SeededWorkspace;
    mandateId: string;
  }

  /** A fresh workspace (seller "Chai Co" + buyer), the listing above, and an active mandate. */
  async function world(mandate: MandateFixture = {}): Promise<World> {
    const ws = await seedWorkspace(t);
    await request(t.url)
      .put(`/v1/pay/agents/${ws.seller.id}/listing`)
      .set('Authorization', `Bearer ${ws.seller.credential}`)
      .send({ listed: true, offers: OFFERS })
      .expect(200);
    return { ws, mandateId: await insertMandate(t, ws, mandate) };
  }

  const idem = () => `idem-${randomUUID()}`;
  const base = '/acp/checkout_sessions';
  const createBody = (
    items: unknown[] = [{ id: 'tea', quantity: 1 }],
    extra: Record<string, unknown> = {},
  ) => ({
    line_items: items,
    currency: 'inr',
    capabilities: {},
    ...extra,
  });
  const payment = (token: string, credentialType = 'svc_delegated_token') => ({
    payment_data: {
      handler_id: 'svc_upi_mandate',
      instrument: { type: 'svc_mandate', credential: { type: credentialType, token } },
    },
  });

  const api = (key: string) => ({
    create: (body: unknown, k = idem()) =>
      request(t.url)
        .post(base)
        .set(acpHeaders(key, k))
        .send(body as object),
    update: (id: string, body: unknown, k = idem()) =>
      request(t.url)
        .post(`${base}/${id}`)
        .set(acpHeaders(key, k))
        .send(body as object),
    get: (id: string) => request(t.url).get(`${base}/${id}`).set(acpHeaders(key)),
    complete: (id: string, body: unknown, k = idem()) =>
      request(t.url)
        .post(`${base}/${id}/complete`)
        .set(acpHeaders(key, k))
        .send(body as object),
    cancel: (id: string, body?: unknown, k = idem()) => {
      const req = request(t.url).post(`${base}/${id}/cancel`).set(acpHeaders(key, k));
      return body === undefined ? req : req.send(body as object);
    },
  });

  /** Creates a session (201, schema-valid) and returns its body. */
  async function openSession(w: World, items: unknown[] = [{ id: 'tea', quantity: 1 }]) {
    const res = await api(w.ws.merchantKey).create(createBody(items));
    expect(res.status).toBe(201);
    expectValid('CheckoutSession', res.body);
    return res.body as AcpSession;
  }

  const token = (w: World, over: Partial<TokenFixture> & { sessionId: string }) =>
    insertToken(t, w.ws, { mandateId: w.mandateId, ...over });

  interface AcpSession {
    id: string;
    status: string;
    line_items: {
      id: string;
      item: { id: string };
      quantity: number;
      unit_amount: number;
      totals: { type: string; amount: number }[];
    }[];
    totals: { type: string; amount: number }[];
    messages: Record<string, unknown>[];
    metadata: Record<string, unknown>;
    order?: { id: string; permalink_url: string; checkout_session_id: string };
    capabilities: {
      payment: { handlers: Record<string, unknown>[] };
      interventions: Record<string, unknown>;
    };
    links: { type: string; url: string }[];
    [k: string]: unknown;
  }

  async function sessionRow(id: string) {
    const [row] = await t.db.query<
      {
        status: string;
        intent_id: string | null;
        order_id: string | null;
        intent_trace: unknown;
        messages: unknown[];
      }[]
    >(
      'SELECT status, intent_id, order_id, intent_trace, messages FROM checkout_sessions WHERE id = $1',
      [id],
    );
    return row;
  }

  async function tokenStatus(id: string): Promise<string> {
    const [row] = await t.db.query<{ status: string }[]>(
      'SELECT status FROM delegated_tokens WHERE id = $1',
      [id],
    );
    return row.status;
  }

  /** Everything the payment pipeline wrote for one session. */
  async function paymentTrail(sessionId: string) {
    const intents = await t.db.query<
      {
        id: string;
        status: string;
        receipt_id: string | null;
        token_id: string;
        amount_paise: string;
        decline_code: string | null;
      }[]
    >(
      `SELECT id, status, receipt_id, token_id, amount_paise::text, decline_code FROM payment_intents
        WHERE source_kind = 'checkout' AND source_id = $1 ORDER BY created_at`,
      [sessionId],
    );
    const ids = intents.map((i) => i.id);
    const transfers = await t.db.query<
      { direction: string; status: string; amount_paise: string }[]
    >(
      'SELECT direction, status, amount_paise::text FROM rail_transfers WHERE intent_id = ANY($1::text[])',
      [ids],
    );
    const events = await t.db.query<{ type: string; subject_id: string }[]>(
      'SELECT type, subject_id FROM outbox_events WHERE subject_id = ANY($1::text[])',
      [ids],
    );
    const receiptIds = intents.map((i) => i.receipt_id).filter((r): r is string => r !== null);
    const chains = await t.db.query<{ chain_id: string; n: number }[]>(
      'SELECT chain_id, count(*)::int AS n FROM chain_entries WHERE chain_id = ANY($1::text[]) GROUP BY chain_id',
      [receiptIds],
    );
    const approvals = await t.db.query<{ status: string; amount_paise: string }[]>(
      `SELECT status, amount_paise::text FROM approvals WHERE kind = 'payment' AND subject_id = ANY($1::text[])`,
      [ids],
    );
    return { intents, transfers, events, chains, approvals };
  }

  describe('create', () => {
    it('201 with the whole session: handler, totals, line items, digital fulfilment, links (schema-valid)', async () => {
      const w = await world();
      const res = await api(w.ws.merchantKey).create(
        createBody([{ id: 'tea', quantity: 2 }, { id: 'biscuits' }, { id: 'tea' }], {
          buyer: { email: 'asha@example.in', first_name: 'Asha' },
          locale: 'en-IN',
        }),
      );
      expect(res.status).toBe(201);
      expectValid('CheckoutSession', res.body);
      const s = res.body as AcpSession;
      expect(s.id).toMatch(/^cs_/);
      expect(s).toMatchObject({
        protocol: { version: '2026-04-17' },
        status: 'ready_for_payment',
        currency: 'inr',
        locale: 'en-IN',
        timezone: 'Asia/Kolkata',
        metadata: {},
        messages: [],
        buyer: { email: 'asha@example.in', first_name: 'Asha' },
      });
      // Duplicate ids merge (2 + 1 teas); a missing quantity means 1.
      expect(s.line_items).toEqual([
        {
          id: 'li_1',
          item: { id: 'tea' },
          quantity: 3,
          name: 'Assam tea 1 kg',
          unit_amount: 45_000,
          sku: 'tea',
          category: 'food.tea',
          marketplace_seller_details: { name: 'Chai Co' },
          totals: [
            { type: 'items_base_amount', display_text: 'Item', amount: 135_000 },
            { type: 'subtotal', display_text: 'Subtotal', amount: 135_000 },
            { type: 'total', display_text: 'Total', amount: 135_000 },
          ],
        },
        expect.objectContaining({
          id: 'li_2',
          item: { id: 'biscuits' },
          quantity: 1,
          unit_amount: 2_500,
        }),
      ]);
      expect(s.totals).toEqual([
        { type: 'items_base_amount', display_text: 'Items', amount: 137_500 },
        { type: 'subtotal', display_text: 'Subtotal', amount: 137_500 },
        { type: 'total', display_text: 'Total', amount: 137_500 },
      ]);
      expect(s.fulfillment_options).toEqual([
        {
          type: 'digital',
          id: 'fo_digital',
          title: 'Digital delivery',
          totals: [{ type: 'total', display_text: 'Digital delivery', amount: 0 }],
        },
      ]);
      expect(s.selected_fulfillment_options).toEqual([
        { type: 'digital', option_id: 'fo_digital', item_ids: ['li_1', 'li_2'] },
      ]);
      expect(s.capabilities).toEqual({
        payment: {
          handlers: [
            {
              id: 'svc_upi_mandate',
              name: 'com.svc.upi_mandate',
              display_name: 'UPI mandate',
              version: '2026-04-17',
              spec: `${t.config.baseUrl}/acp/handlers/upi_mandate`,
              requires_delegate_payment: true,
              requires_pci_compliance: false,
              psp: 'svc',
              config_schema: `${t.config.baseUrl}/acp/handlers/upi_mandate/config.schema.json`,
              instrument_schemas: [
                `${t.config.baseUrl}/acp/handlers/upi_mandate/instrument.schema.json`,
              ],
              config: {
                merchant_id: w.ws.seller.id,
                psp: 'svc',
                environment: 'sandbox',
                delegate_payment_url: `${t.config.baseUrl}/acp/agentic_commerce/delegate_payment`,
                instrument_type: 'svc_mandate',
                credential_type: 'svc_delegated_token',
                rails: ['upi_reserve_pay', 'upi_otm'],
              },
              display_order: 0,
            },
          ],
        },
        interventions: { supported: [], required: [], enforcement: 'conditional' },
      });
      expect(s.links).toEqual([
        { type: 'terms_of_use', title: 'Terms of use', url: `${t.config.appUrl}/legal/terms` },
        {
          type: 'privacy_policy',
          title: 'Privacy policy',
          url: `${t.config.appUrl}/legal/privacy`,
        },
      ]);
      const ttl = Date.parse(s.expires_at as string) - Date.parse(s.created_at as string);
      expect(ttl).toBe(t.config.checkoutSessionTtlSeconds * 1000);
      const row = await sessionRow(s.id);
      expect(row.status).toBe('ready_for_payment');
      const [owner] = await t.db.query<{ seller_agent_id: string; protocol_key_id: string }[]>(
        'SELECT seller_agent_id, protocol_key_id FROM checkout_sessions WHERE id = $1',
        [s.id],
      );
      expect(owner).toEqual({
        seller_agent_id: w.ws.seller.id,
        protocol_key_id: w.ws.merchantKeyId,
      });
    });

    it('replays a create with the same Idempotency-Key: same session, created once', async () => {
      const w = await world();
      const key = idem();
      const first = await api(w.ws.merchantKey).create(createBody(), key);
      const again = await api(w.ws.merchantKey).create(createBody(), key);
      expect(again.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      const [{ n }] = await t.db.query<{ n: number }[]>(
        'SELECT count(*)::int AS n FROM checkout_sessions WHERE seller_agent_id = $1',
        [w.ws.seller.id],
      );
      expect(n).toBe(1);
    });

    it('ignores unknown capability values instead of refusing them', async () => {
      const w = await world();
      const res = await api(w.ws.merchantKey).create(
        createBody(undefined, {
          capabilities: {
            interventions: {
              supported: ['3ds', 'telepathy'],
              display_context: 'hologram',
              max_redirects: 2,
            },
            payment_methods: ['card'],
            extensions: ['discount'],
          },
        }),
      );
      expect(res.status).toBe(201);
      expectValid('CheckoutSession', res.body);
      expect(res.body.capabilities.interventions).toEqual({
        supported: [],
        required: [],
        enforcement: 'conditional',
      });
    });

    it('takes the published price over a hinted unit_amount, with a price_change warning', async () => {
      const w = await world();
      const res = await api(w.ws.merchantKey).create(
        createBody([{ id: 'tea', unit_amount: 40_000, name: 'Cheap tea' }]),
      );
      expect(res.status).toBe(201);
      expectValid('CheckoutSession', res.body);
      expect(res.body.status).toBe('ready_for_payment');
      expect(res.body.line_items[0]).toMatchObject({ unit_amount: 45_000, name: 'Assam tea 1 kg' });
      expect(res.body.messages).toEqual([
        expect.objectContaining({
          type: 'warning',
          code: 'price_change',
          param: '$.line_items[0].unit_amount',
          content_type: 'plain',
        }),
      ]);
    });

    it('answers discount codes with a warning each (we have none) and stays payable', async () => {
      const w = await world();
      const res = await api(w.ws.merchantKey).create(
        createBody(undefined, { discounts: { codes: ['SAVE10'] }, coupons: ['OLD'] }),
      );
      expect(res.status).toBe(201);
      expectValid('CheckoutSession', res.body);
      expect(
        res.body.messages.map((m: { code: string; param: string }) => [m.code, m.param]),
      ).toEqual([
        ['discount_code_invalid', '$.coupons[0]'],
        ['discount_code_invalid', '$.discounts.codes[0]'],
      ]);
      expect(res.body.status).toBe('ready_for_payment');
    });

    it('400 invalid_item_id for a SKU the seller never published, naming the line', async () => {
      const w = await world();
      const res = await api(w.ws.merchantKey).create(
        createBody([{ id: 'tea' }, { id: 'unicorn' }]),
      );
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        type: 'invalid_request',
        code: 'invalid_item_id',
        message: expect.any(String),
        param: '$.line_items[1].id',
      });
      expectValid('Error', res.body);
    });

    it("400 for another seller's SKU: offers are per seller", async () => {
      const w = await world();
      const other = await world();
      await request(t.url)
        .put(`/v1/pay/agents/${other.ws.seller.id}/listing`)
        .set('Authorization', `Bearer ${other.ws.seller.credential}`)
        .send({
          listed: true,
          offers: [{ sku: 'only-theirs', name: 'Theirs', unit_paise: 100, category: 'x' }],
        })
        .expect(200);
      const res = await api(w.ws.merchantKey).create(createBody([{ id: 'only-theirs' }]));
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_item_id');
    });

    const invalid: [string, Record<string, unknown>, string, string][] = [
      [
        'currency INR (uppercase)',
        createBody(undefined, { currency: 'INR' }),
        'invalid',
        '$.currency',
      ],
      ['currency usd', createBody(undefined, { currency: 'usd' }), 'invalid', '$.currency'],
      [
        'capabilities missing',
        { line_items: [{ id: 'tea' }], currency: 'inr' },
        'missing',
        '$.capabilities',
      ],
      [
        'capabilities not an object',
        createBody(undefined, { capabilities: [] }),
        'invalid',
        '$.capabilities',
      ],
      ['line_items missing', { currency: 'inr', capabilities: {} }, 'missing', '$.line_items'],
      ['line_items empty', createBody([]), 'invalid', '$.line_items'],
      ['unknown top-level field', createBody(undefined, { gift: true }), 'invalid', '$.gift'],
      [
        'unknown item field',
        createBody([{ id: 'tea', colour: 'red' }]),
        'invalid',
        '$.line_items[0].colour',
      ],
      [
        'quantity 0',
        createBody([{ id: 'tea', quantity: 0 }]),
        'invalid',
        '$.line_items[0].quantity',
      ],
      [
        'quantity 1.5',
        createBody([{ id: 'tea', quantity: 1.5 }]),
        'invalid',
        '$.line_items[0].quantity',
      ],
      ['item id missing', createBody([{ quantity: 1 }]), 'missing', '$.line_items[0].id'],
      [
        'buyer without email',
        createBody(undefined, { buyer: { first_name: 'A' } }),
        'missing',
        '$.buyer.email',
      ],
      [
        'buyer with a bad email',
        createBody(undefined, { buyer: { email: 'not-an-email' } }),
        'invalid',
        '$.buyer.email',
      ],
      ['buyer null', createBody(undefined, { buyer: null }), 'invalid', '$.buyer'],
      [
        'unknown buyer field',
        createBody(undefined, { buyer: { email: 'a@b.in', shoe_size: 9 } }),
        'invalid',
        '$.buyer.shoe_size',
      ],
      ['quote_id', createBody(undefined, { quote_id: 'qt_1' }), 'invalid', '$.quote_id'],
      [
        'order_notes too long',
        createBody(undefined, { order_notes: 'x'.repeat(5001) }),
        'invalid',
        '$.order_notes',
      ],
    ];

    it.each(invalid)('400 for %s', async (_name, body, code, param) => {
      const w = await world();
      const res = await api(w.ws.merchantKey).create(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        type: 'invalid_request',
        code,
        message: expect.any(String),
        param,
      });
      expectValid('Error', res.body);
    });

    it('accepts a schema-valid body with the optional fields we ignore', async () => {
      const w = await world();
      const res = await api(w.ws.merchantKey).create(
        createBody([{ id: 'biscuits' }], {
          fulfillment_details: { name: 'Asha', email: 'asha@example.in' },
          affiliate_attribution: { provider: 'example', publisher_id: 'p1' },
          metadata: { cart: 'c1' },
          order_notes: 'Thanks',
          timezone: 'Asia/Kolkata',
        }),
      );
      expect(res.status).toBe(201);
      expectValid('CheckoutSession', res.body);
    });

    it('is not_ready_for_payment with an out_of_stock error when an offer was withdrawn', async () => {
      const w = await world();
      await request(t.url)
        .put(`/v1/pay/agents/${w.ws.seller.id}/listing`)
        .set('Authorization', `Bearer ${w.ws.seller.credential}`)
        .send({ listed: true, offers: OFFERS.filter((o) => o.sku !== 'biscuits') })
        .expect(200);
      const res = await api(w.ws.merchantKey).create(
        createBody([{ id: 'tea' }, { id: 'biscuits' }]),
      );
      expect(res.status).toBe(201);
      expectValid('CheckoutSession', res.body);
      expect(res.body.status).toBe('not_ready_for_payment');
      expect(res.body.messages).toEqual([
        expect.objectContaining({
          type: 'error',
          code: 'out_of_stock',
          param: '$.line_items[1]',
          content: expect.stringContaining('Biscuits'),
        }),
      ]);
    });
  });

  describe('update and retrieve', () => {
    it('re-prices on update, keeps line ids per SKU, and GET returns the same session', async () => {
      const w = await world();
      const s = await openSession(w, [{ id: 'tea' }]);
      const res = await api(w.ws.merchantKey).update(s.id, {
        line_items: [
          { id: 'biscuits', quantity: 4 },
          { id: 'tea', quantity: 2 },
        ],
        buyer: { email: 'ravi@example.in', phone_number: '+919800000000' },
        selected_fulfillment_options: [
          { type: 'digital', option_id: 'fo_digital', item_ids: ['li_1', 'biscuits'] },
        ],
      });
      expect(res.status).toBe(200);
      expectValid('CheckoutSession', res.body);
      expect(
        res.body.line_items.map((l: { id: string; item: { id: string }; quantity: number }) => [
          l.id,
          l.item.id,
          l.quantity,
        ]),
      ).toEqual([
        ['li_2', 'biscuits', 4],
        ['li_1', 'tea', 2],
      ]);
      expect(res.body.totals.at(-1)).toEqual({
        type: 'total',
        display_text: 'Total',
        amount: 100_000,
      });
      expect(res.body.buyer).toEqual({ email: 'ravi@example.in', phone_number: '+919800000000' });
      const got = await api(w.ws.merchantKey).get(s.id);
      expect(got.status).toBe(200);
      expectValid('CheckoutSession', got.body);
      expect(got.body).toEqual(res.body);
    });

    it('400 for a fulfilment option we do not offer and for null fields', async () => {
      const w = await world();
      const s = await openSession(w);
      const option = await api(w.ws.merchantKey).update(s.id, {
        selected_fulfillment_options: [
          { type: 'shipping', option_id: 'fo_ship', item_ids: ['li_1'] },
        ],
      });
      expect(option.status).toBe(400);
      expect(option.body.param).toBe('$.selected_fulfillment_options[0].option_id');
      const nulled = await api(w.ws.merchantKey).update(s.id, { line_items: null });
      expect(nulled.status).toBe(400);
      expect(nulled.body.param).toBe('$.line_items');
      const unknown = await api(w.ws.merchantKey).update(s.id, { currency: 'inr' });
      expect(unknown.status).toBe(400);
      expect(unknown.body.param).toBe('$.currency');
      const sku = await api(w.ws.merchantKey).update(s.id, { line_items: [{ id: 'nope' }] });
      expect(sku.status).toBe(400);
      expect(sku.body).toMatchObject({ code: 'invalid_item_id', param: '$.line_items[0].id' });
    });

    it('an offer withdrawn after create blocks payment on the next update and on complete', async () => {
      const w = await world();
      const s = await openSession(w, [{ id: 'tea' }, { id: 'biscuits' }]);
      const tok = await token(w, { sessionId: s.id });
      await request(t.url)
        .put(`/v1/pay/agents/${w.ws.seller.id}/listing`)
        .set('Authorization', `Bearer ${w.ws.seller.credential}`)
        .send({ listed: true, offers: OFFERS.filter((o) => o.sku !== 'tea') })
        .expect(200);
      const completed = await api(w.ws.merchantKey).complete(s.id, payment(tok));
      expect(completed.status).toBe(200);
      expectValid('CheckoutSession', completed.body);
      expect(completed.body.status).toBe('not_ready_for_payment');
      expect(completed.body.messages[0]).toMatchObject({
        type: 'error',
        code: 'out_of_stock',
        param: '$.line_items[0]',
      });
      expect(await tokenStatus(tok)).toBe('usable');
      expect((await paymentTrail(s.id)).intents).toEqual([]);

      const again = await api(w.ws.merchantKey).complete(s.id, payment(tok));
      expect(again.status).toBe(400);
      expect(again.body.code).toBe('invalid_state');

      const fixed = await api(w.ws.merchantKey).update(s.id, { line_items: [{ id: 'biscuits' }] });
      expect(fixed.status).toBe(200);
      expect(fixed.body.status).toBe('ready_for_payment');
      expect(fixed.body.messages).toEqual([]);
    });

    it('404 for an unknown id and for another merchant’s session, on every route', async () => {
      const w = await world();
      const other = await world();
      const s = await openSession(w);
      const tok = await token(w, { sessionId: s.id });
      const them = api(other.ws.merchantKey);
      for (const res of [
        await them.get(s.id),
        await them.update(s.id, {}),
        await them.complete(s.id, payment(tok)),
        await them.cancel(s.id),
        await api(w.ws.merchantKey).get('cs_doesnotexist'),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual({
          type: 'invalid_request',
          code: 'not_found',
          message: expect.any(String),
        });
      }
      expect((await sessionRow(s.id)).status).toBe('ready_for_payment');
      expect(await tokenStatus(tok)).toBe('usable');
    });

    it('a buyer key may not use checkout routes (403)', async () => {
      const w = await world();
      const res = await api(w.ws.buyerKey).create(createBody());
      expect(res.status).toBe(403);
    });
  });

  describe('complete', () => {
    it('≤ ₹2,000: completed with an order and a receipt; one intent, one debit, one event', async () => {
      const w = await world();
      const s = await openSession(w, [{ id: 'tea', quantity: 2 }, { id: 'biscuits' }]);
      const tok = await token(w, { sessionId: s.id, maxAmountPaise: 92_500 });
      const key = idem();
      const res = await api(w.ws.merchantKey).complete(s.id, payment(tok), key);
      expect(res.status).toBe(200);
      expectValid('CheckoutSessionWithOrder', res.body);
      expect(res.body.status).toBe('completed');
      expect(res.body.order).toEqual({
        type: 'order',
        id: expect.stringMatching(/^ord_/),
        checkout_session_id: s.id,
        permalink_url: `${t.config.appUrl}/orders/${res.body.order.id}`,
        status: 'confirmed',
      });
      expect(res.body.metadata).toEqual({ svc_receipt_id: expect.stringMatching(/^rcp_/) });
      expect(res.body.messages).toEqual([]);

      const trail = await paymentTrail(s.id);
      expect(trail.intents).toEqual([
        {
          id: expect.any(String),
          status: 'settled',
          receipt_id: res.body.metadata.svc_receipt_id,
          token_id: tok,
          amount_paise: '92500',
          decline_code: null,
        },
      ]);
      expect(trail.transfers).toEqual([
        { direction: 'debit', status: 'succeeded', amount_paise: '92500' },
      ]);
      expect(trail.events).toEqual([{ type: 'intent.settled', subject_id: trail.intents[0].id }]);
      expect(trail.chains).toEqual([{ chain_id: res.body.metadata.svc_receipt_id, n: 1 }]);
      expect((await t.get(ChainService).verify(res.body.metadata.svc_receipt_id)).valid).toBe(true);
      const [entry] = await t.get(ChainService).entries(res.body.metadata.svc_receipt_id);
      expect(entry.payload).toMatchObject({
        checkout_session_id: s.id,
        line_items: [
          { sku: 'tea', quantity: 2, unit_paise: 45_000 },
          { sku: 'biscuits', quantity: 1, unit_paise: 2_500 },
        ],
      });
      expect(await tokenStatus(tok)).toBe('used');
      const row = await sessionRow(s.id);
      expect(row).toMatchObject({
        status: 'completed',
        intent_id: trail.intents[0].id,
        order_id: res.body.order.id,
      });

      const got = await api(w.ws.merchantKey).get(s.id);
      expectValid('CheckoutSessionWithOrder', got.body);
      expect(got.body).toEqual(res.body);

      // Replay with the same key: the stored answer, no second charge.
      const replay = await api(w.ws.merchantKey).complete(s.id, payment(tok), key);
      expect(replay.status).toBe(200);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual(res.body);
      expect((await paymentTrail(s.id)).transfers).toHaveLength(1);
    });

    it('accepts credential type spt for the same token', async () => {
      const w = await world();
      const s = await openSession(w, [{ id: 'biscuits' }]);
      const tok = await token(w, { sessionId: s.id });
      const res = await api(w.ws.merchantKey).complete(s.id, payment(tok, 'spt'));
      expect(res.status).toBe(200);
      expectValid('CheckoutSessionWithOrder', res.body);
    });

    it('> ₹2,000: pending_approval without an order until a person approves; then completed', async () => {
      const w = await world();
      const s = await openSession(w, [{ id: 'kettle' }]);
      const tok = await token(w, { sessionId: s.id });
      const res = await api(w.ws.merchantKey).complete(s.id, payment(tok));
      expect(res.status).toBe(200);
      expectValid('CheckoutSession', res.body);
      expect(isValid('CheckoutSessionWithOrder', res.body)).toBe(false);
      expect(res.body.status).toBe('pending_approval');
      expect(res.body.order).toBeUndefined();
      expect(res.body.metadata).toEqual({});
      expect(res.body.messages).toEqual([
        {
          type: 'info',
          severity: 'info',
          resolution: 'requires_buyer_review',
          content_type: 'plain',
          content: expect.stringMatching(/person must approve it in the app/),
        },
      ]);
      const trail = await paymentTrail(s.id);
      expect(trail.intents.map((i) => i.status)).toEqual(['requires_approval']);
      expect(trail.approvals).toEqual([{ status: 'pending', amount_paise: '250000' }]);
      expect(trail.transfers).toEqual([]);
      expect(await tokenStatus(tok)).toBe('used');

      // Update and a second complete are refused while the payment waits.
      expect((await api(w.ws.merchantKey).update(s.id, {})).body.code).toBe('invalid_state');

      const [approval] = await t.db.query<{ id: string }[]>(
        `SELECT id FROM approvals WHERE subject_id = $1`,
        [trail.intents[0].id],
      );
      await t
        .get(ApprovalsService)
        .decide(w.ws.workspaceId, approval.id, w.ws.personId, 'approved');
      const got = await api(w.ws.merchantKey).get(s.id);
      expect(got.status).toBe(200);
      expectValid('CheckoutSessionWithOrder', got.body);
      expect(got.body.status).toBe('completed');
      expect(got.body.metadata.svc_receipt_id).toMatch(/^rcp_/);
      expect(got.body.order.id).toMatch(/^ord_/);
      const after = await paymentTrail(s.id);
      expect(after.intents[0].status).toBe('settled');
      expect(after.transfers).toHaveLength(1);
      expect(after.events).toHaveLength(1);
    });

    it('a person denying the approval returns the session to ready_for_payment with payment_declined', async () => {
      const w = await world();
      const s = await openSession(w, [{ id: 'kettle' }]);
      const tok = await token(w, { sessionId: s.id });
      await api(w.ws.merchantKey).complete(s.id, payment(tok)).expect(200);
      const [approval] = await t.db.query<{ id: string }[]>(
        `SELECT a.id FROM approvals a JOIN payment_intents pi ON pi.id = a.subject_id WHERE pi.source_id = $1`,
        [s.id],
      );
      await t.get(ApprovalsService).decide(w.ws.workspaceId, approval.id, w.ws.personId, 'denied');
      const got = await api(w.ws.merchantKey).get(s.id);
      expectValid('CheckoutSession', got.body);
      expect(got.body.status).toBe('ready_for_payment');
      expect(got.body.messages[0]).toMatchObject({
        type: 'error',
        code: 'payment_declined',
        content: expect.stringContaining('declined'),
      });
    });

    describe('token errors leave the session ready_for_payment', () => {
      async function expectUntouched(w: World, sessionId: string) {
        const got = await api(w.ws.merchantKey).get(sessionId);
        expectValid('CheckoutSession', got.body);
        expect(got.body.status).toBe('ready_for_payment');
        expect((await sessionRow(sessionId)).status).toBe('ready_for_payment');
        const trail = await paymentTrail(sessionId);
        expect(trail.transfers).toEqual([]);
        expect(trail.intents.filter((i) => i.status === 'settled')).toEqual([]);
      }

      const TOKEN_PARAM = '$.payment_data.instrument.credential.token';

      it('token_used: a token spent by a declined payment cannot pay again (new Idempotency-Key)', async () => {
        const w = await world({ perPaymentCapPaise: 10_000 });
        const s = await openSession(w);
        const tok = await token(w, { sessionId: s.id });
        const declined = await api(w.ws.merchantKey).complete(s.id, payment(tok));
        expect(declined.status).toBe(200);
        expect(declined.body.status).toBe('ready_for_payment');
        const again = await api(w.ws.merchantKey).complete(s.id, payment(tok));
        expect(again.status).toBe(400);
        expect(again.body).toEqual({
          type: 'invalid_request',
          code: 'token_used',
          message: expect.any(String),
          param: TOKEN_PARAM,
        });
        expectValid('Error', again.body);
        await expectUntouched(w, s.id);
        expect((await paymentTrail(s.id)).intents).toHaveLength(1);
      });

      it('token_session_mismatch: a token for another session', async () => {
        const w = await world();
        const s = await openSession(w);
        const otherSession = await openSession(w);
        const tok = await token(w, { sessionId: otherSession.id });
        const res = await api(w.ws.merchantKey).complete(s.id, payment(tok));
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ code: 'token_session_mismatch', param: TOKEN_PARAM });
        expect(await tokenStatus(tok)).toBe('usable');
        await expectUntouched(w, s.id);
      });

      it('allowance_exceeded: the session total is above max_amount', async () => {
        const w = await world();
        const s = await openSession(w, [{ id: 'tea', quantity: 2 }]);
        const tok = await token(w, { sessionId: s.id, maxAmountPaise: 89_999 });
        const res = await api(w.ws.merchantKey).complete(s.id, payment(tok));
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ code: 'allowance_exceeded', param: TOKEN_PARAM });
        expect(await tokenStatus(tok)).toBe('usable');
        await expectUntouched(w, s.id);
      });

      it('token_expired: at or after expires_at (clock advanced)', async () => {
        const w = await world();
        const s = await openSession(w);
        const tok = await token(w, {
          sessionId: s.id,
          expiresAt: new Date(t.clock.now().getTime() + 60_000),
        });
        t.clock.advance(60_000);
        const res = await api(w.ws.merchantKey).complete(s.id, payment(tok));
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ code: 'token_expired', param: TOKEN_PARAM });
        await expectUntouched(w, s.id);
      });

      it('token_revoked: the person revoked it', async () => {
        const w = await world();
        const s = await openSession(w);
        const tok = await token(w, { sessionId: s.id, status: 'revoked' });
        const res = await api(w.ws.merchantKey).complete(s.id, payment(tok));
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ code: 'token_revoked', param: TOKEN_PARAM });
        await expectUntouched(w, s.id);
      });

      it('402 requires_buyer_review: the mandate behind the token is not authorised yet', async () => {
        const w = await world({ status: 'pending_authorisation' });
        const s = await openSession(w);
        const tok = await token(w, { sessionId: s.id });
        const res = await api(w.ws.merchantKey).complete(s.id, payment(tok));
        expect(res.status).toBe(402);
        expect(res.body).toEqual({
          type: 'invalid_request',
          code: 'requires_buyer_review',
          message: expect.stringContaining('/authorize'),
          param: TOKEN_PARAM,
        });
        expectValid('Error', res.body);
        expect(await tokenStatus(tok)).toBe('usable');
        await expectUntouched(w, s.id);
      });

      it('token_invalid: an unknown token', async () => {
        const w = await world();
        const s = await openSession(w);
        const res = await api(w.ws.merchantKey).complete(s.id, payment('vt_unknown000'));
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ code: 'token_invalid', param: TOKEN_PARAM });
        await expectUntouched(w, s.id);
      });
    });

    describe('refused payments: 200, ready_for_payment, payment_declined, token spent', () => {
      async function expectDeclined(
        w: World,
        sessionId: string,
        tok: string,
        res: request.Response,
        reason: RegExp,
      ) {
        expect(res.status).toBe(200);
        expectValid('CheckoutSession', res.body);
        expect(res.body.status).toBe('ready_for_payment');
        expect(res.body.order).toBeUndefined();
        expect(res.body.messages).toEqual([
          {
            type: 'error',
            code: 'payment_declined',
            severity: 'high',
            resolution: 'recoverable',
            param: '$.payment_data',
            content_type: 'plain',
            content: expect.stringMatching(reason),
          },
        ]);
        expect(await tokenStatus(tok)).toBe('used');
        const got = await api(w.ws.merchantKey).get(sessionId);
        expect(got.body).toEqual(res.body);
      }

      it('the mandate cap is below the total', async () => {
        const w = await world({ perPaymentCapPaise: 40_000 });
        const s = await openSession(w);
        const tok = await token(w, { sessionId: s.id });
        const res = await api(w.ws.merchantKey).complete(s.id, payment(tok));
        await expectDeclined(w, s.id, tok, res, /spending rules: .*per-payment cap/);
        const trail = await paymentTrail(s.id);
        expect(trail.intents.map((i) => [i.status, i.decline_code])).toEqual([
          ['declined', 'mandate_cap_exceeded'],
        ]);
        expect(trail.transfers).toEqual([]);
        expect(trail.events).toEqual([]);
      });

      it('the seller is not on the mandate seller list', async () => {
        const w = await world({ payeeAgentIds: ['agt_someoneelse'] });
        const s = await openSession(w);
        const tok = await token(w, { sessionId: s.id });
        const res = await api(w.ws.merchantKey).complete(s.id, payment(tok));
        await expectDeclined(w, s.id, tok, res, /seller list/);
        expect((await paymentTrail(s.id)).intents[0].decline_code).toBe('seller_not_allowed');
      });

      it('the sandbox rail fails an amount ending in 51 paise; a new token then pays', async () => {
        const w = await world();
        const s = await openSession(w, [{ id: 'flaky' }]);
        const tok = await token(w, { sessionId: s.id });
        const res = await api(w.ws.merchantKey).complete(s.id, payment(tok));
        await expectDeclined(w, s.id, tok, res, /UPI payment failed: .*insufficient funds/);
        const trail = await paymentTrail(s.id);
        expect(trail.intents.map((i) => [i.status, i.decline_code])).toEqual([
          ['failed', 'insufficient_funds'],
        ]);
        expect(trail.transfers).toEqual([
          { direction: 'debit', status: 'failed', amount_paise: '1051' },
        ]);

        // The agent fixes the cart and pays with a fresh token.
        await api(w.ws.merchantKey)
          .update(s.id, { line_items: [{ id: 'biscuits' }] })
          .expect(200);
        const fresh = await token(w, { sessionId: s.id });
        const paid = await api(w.ws.merchantKey).complete(s.id, payment(fresh));
        expect(paid.status).toBe(200);
        expectValid('CheckoutSessionWithOrder', paid.body);
        expect((await paymentTrail(s.id)).intents.map((i) => i.status)).toEqual([
          'failed',
          'settled',
        ]);
      });
    });

    const badPayments: [string, unknown, number, string, string][] = [
      [
        'another handler',
        {
          payment_data: {
            handler_id: 'card_handler',
            instrument: { type: 'card', credential: { type: 'spt', token: 'vt_x' } },
          },
        },
        400,
        'invalid',
        '$.payment_data.handler_id',
      ],
      [
        'purchase order only',
        { payment_data: { purchase_order_number: 'PO-1' } },
        400,
        'unsupported',
        '$.payment_data.purchase_order_number',
      ],
      [
        'a card instrument',
        {
          payment_data: {
            handler_id: 'svc_upi_mandate',
            instrument: { type: 'card', credential: { type: 'spt', token: 'vt_x' } },
          },
        },
        400,
        'invalid',
        '$.payment_data.instrument.type',
      ],
      [
        'another credential type',
        {
          payment_data: {
            handler_id: 'svc_upi_mandate',
            instrument: { type: 'svc_mandate', credential: { type: 'wallet', token: 'vt_x' } },
          },
        },
        400,
        'invalid',
        '$.payment_data.instrument.credential.type',
      ],
      [
        'no token',
        {
          payment_data: {
            handler_id: 'svc_upi_mandate',
            instrument: { type: 'svc_mandate', credential: { type: 'spt' } },
          },
        },
        400,
        'missing',
        '$.payment_data.instrument.credential.token',
      ],
      [
        'no instrument',
        { payment_data: { handler_id: 'svc_upi_mandate' } },
        400,
        'missing',
        '$.payment_data.instrument',
      ],
      ['no payment_data', {}, 400, 'missing', '$.payment_data'],
      [
        'an unknown payment_data field',
        { payment_data: { handler_id: 'svc_upi_mandate', token: 'vt_x' } },
        400,
        'invalid',
        '$.payment_data.token',
      ],
    ];

    it.each(badPayments)('400 for %s', async (_name, body, status, code, param) => {
      const w = await world();
      const s = await openSession(w);
      const res = await api(w.ws.merchantKey).complete(s.id, body);
      expect(res.status).toBe(status);
      expect(res.body).toEqual({
        type: 'invalid_request',
        code,
        message: expect.any(String),
        param,
      });
      expect((await sessionRow(s.id)).status).toBe('ready_for_payment');
    });

    it('50 concurrent completes with one token: one completed, the rest token_used (or 409), one charge', async () => {
      const w = await world();
      const s = await openSession(w);
      const tok = await token(w, { sessionId: s.id });
      const results = await Promise.all(
        Array.from({ length: 50 }, () => api(w.ws.merchantKey).complete(s.id, payment(tok))),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((x) => x >= 500)).toEqual([]);
      const ok = results.filter((r) => r.status === 200);
      expect(ok).toHaveLength(1);
      expectValid('CheckoutSessionWithOrder', ok[0].body);
      expect(ok[0].body.status).toBe('completed');
      for (const r of results.filter((x) => x.status !== 200)) {
        expect([400, 409]).toContain(r.status);
        if (r.status === 400) {
          expect(r.body.code).toBe('token_used');
        }
      }
      const trail = await paymentTrail(s.id);
      expect(trail.intents).toHaveLength(1);
      expect(trail.transfers).toHaveLength(1);
      expect(trail.events).toHaveLength(1);
      expect(trail.chains).toHaveLength(1);
      expect(trail.chains[0].n).toBe(1);
    });

    it('cancel racing complete ends in one consistent state', async () => {
      const w = await world();
      for (let round = 0; round < 3; round++) {
        const s = await openSession(w, [{ id: 'biscuits' }]);
        const tok = await token(w, { sessionId: s.id });
        const [done, canceled] = await Promise.all([
          api(w.ws.merchantKey).complete(s.id, payment(tok)),
          api(w.ws.merchantKey).cancel(s.id),
        ]);
        const row = await sessionRow(s.id);
        const trail = await paymentTrail(s.id);
        if (done.status === 200) {
          expect(done.body.status).toBe('completed');
          expect(canceled.status).toBe(405);
          expect(canceled.body.code).toBe('invalid_state');
          expect(row.status).toBe('completed');
          expect(trail.intents.map((i) => i.status)).toEqual(['settled']);
        } else {
          expect(done.status).toBe(400);
          expect(done.body.code).toBe('invalid_state');
          expect(canceled.status).toBe(200);
          expectValid('CheckoutSession', canceled.body);
          expect(row.status).toBe('canceled');
          expect(trail.intents).toEqual([]);
          expect(await tokenStatus(tok)).toBe('usable');
        }
      }
    });

    it('a completed session cannot be completed, updated or canceled again', async () => {
      const w = await world();
      const s = await openSession(w, [{ id: 'biscuits' }]);
      const tok = await token(w, { sessionId: s.id });
      await api(w.ws.merchantKey).complete(s.id, payment(tok)).expect(200);
      const fresh = await token(w, { sessionId: s.id });
      const again = await api(w.ws.merchantKey).complete(s.id, payment(fresh));
      expect(again.status).toBe(400);
      expect(again.body.code).toBe('invalid_state');
      expect(await tokenStatus(fresh)).toBe('usable');
      const update = await api(w.ws.merchantKey).update(s.id, { buyer: { email: 'x@y.in' } });
      expect(update.status).toBe(400);
      expect(update.body.code).toBe('invalid_state');
      const cancel = await api(w.ws.merchantKey).cancel(s.id);
      expect(cancel.status).toBe(405);
      expect(cancel.body).toEqual({
        type: 'invalid_request',
        code: 'invalid_state',
        message: expect.any(String),
      });
      expect((await paymentTrail(s.id)).transfers).toHaveLength(1);
    });
  });

  describe('cancel', () => {
    it('cancels with an empty body and no Content-Type', async () => {
      const w = await world();
      const s = await openSession(w);
      const res = await request(t.url)
        .post(`${base}/${s.id}/cancel`)
        .set(acpHeaders(w.ws.merchantKey, idem()));
      expect(res.status).toBe(200);
      expectValid('CheckoutSession', res.body);
      expect(res.body.status).toBe('canceled');
      expect(res.body.messages).toEqual([
        expect.objectContaining({ type: 'info', content: expect.stringContaining('canceled') }),
      ]);
      const row = await sessionRow(s.id);
      expect(row).toMatchObject({ status: 'canceled', intent_trace: null });
    });

    it('stores the intent_trace once (unknown reason_code as other) and never returns it', async () => {
      const w = await world();
      const s = await openSession(w);
      const key = idem();
      const body = {
        intent_trace: {
          reason_code: 'buyer_cancelled',
          trace_summary: 'Found it cheaper',
          metadata: { competitor_price: 39_900, brand: 'x', urgent: false },
        },
        note: 'open body',
      };
      const res = await api(w.ws.merchantKey).cancel(s.id, body, key);
      expect(res.status).toBe(200);
      expectValid('CheckoutSession', res.body);
      expect(JSON.stringify(res.body)).not.toContain('intent_trace');
      expect(JSON.stringify(res.body)).not.toContain('cheaper');
      expect((await sessionRow(s.id)).intent_trace).toEqual({
        reason_code: 'other',
        trace_summary: 'Found it cheaper',
        metadata: { competitor_price: 39_900, brand: 'x', urgent: false },
      });
      const replay = await api(w.ws.merchantKey).cancel(s.id, body, key);
      expect(replay.status).toBe(200);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      const got = await api(w.ws.merchantKey).get(s.id);
      expectValid('CheckoutSession', got.body);
      expect(JSON.stringify(got.body)).not.toContain('cheaper');
    });

    it('keeps a known reason_code as sent', async () => {
      const w = await world();
      const s = await openSession(w);
      await api(w.ws.merchantKey)
        .cancel(s.id, { intent_trace: { reason_code: 'price_sensitivity' } })
        .expect(200);
      expect((await sessionRow(s.id)).intent_trace).toEqual({ reason_code: 'price_sensitivity' });
    });

    // A trace never makes the cancel fail (docs/acp.md §4); the full set is in acp-cancel-trace.e2e-spec.ts.
    it.each([
      [
        'nested metadata',
        { intent_trace: { reason_code: 'other', metadata: { a: { b: 1 }, k: 'v' } } },
        { reason_code: 'other', metadata: { k: 'v' } },
      ],
      [
        'array metadata value',
        { intent_trace: { reason_code: 'other', metadata: { list: [1] } } },
        { reason_code: 'other', metadata: {} },
      ],
      [
        'summary over 500',
        { intent_trace: { reason_code: 'other', trace_summary: 's'.repeat(501) } },
        { reason_code: 'other', trace_summary: 's'.repeat(500) },
      ],
      [
        'no reason_code',
        { intent_trace: { trace_summary: 'x' } },
        { reason_code: 'other', trace_summary: 'x' },
      ],
    ])('200 for %s: the trace is stored cut down', async (_name, body, stored) => {
      const w = await world();
      const s = await openSession(w);
      const res = await api(w.ws.merchantKey).cancel(s.id, body);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('canceled');
      expect(await sessionRow(s.id)).toMatchObject({ status: 'canceled', intent_trace: stored });
    });

    it('405 invalid_state on a second cancel', async () => {
      const w = await world();
      const s = await openSession(w);
      await api(w.ws.merchantKey).cancel(s.id).expect(200);
      const again = await api(w.ws.merchantKey).cancel(s.id);
      expect(again.status).toBe(405);
      expect(again.body).toEqual({
        type: 'invalid_request',
        code: 'invalid_state',
        message: expect.any(String),
      });
      const update = await api(w.ws.merchantKey).update(s.id, {});
      expect(update.status).toBe(400);
      expect(update.body.code).toBe('invalid_state');
    });

    it('canceling a session awaiting approval declines the intent and withdraws the approval', async () => {
      const w = await world();
      const s = await openSession(w, [{ id: 'kettle' }]);
      const tok = await token(w, { sessionId: s.id });
      await api(w.ws.merchantKey).complete(s.id, payment(tok)).expect(200);
      const res = await api(w.ws.merchantKey).cancel(s.id, {
        intent_trace: { reason_code: 'timing_deferred' },
      });
      expect(res.status).toBe(200);
      expectValid('CheckoutSession', res.body);
      expect(res.body.status).toBe('canceled');
      const trail = await paymentTrail(s.id);
      expect(trail.intents.map((i) => [i.status, i.decline_code])).toEqual([
        ['declined', 'canceled'],
      ]);
      expect(trail.approvals).toEqual([{ status: 'withdrawn', amount_paise: '250000' }]);
      expect(trail.transfers).toEqual([]);
    });
  });

  describe('expiry', () => {
    it('an open session past expires_at reads expired, refuses complete and update, and can still be canceled', async () => {
      const w = await world();
      const s = await openSession(w);
      const tok = await token(w, {
        sessionId: s.id,
        expiresAt: new Date(t.clock.now().getTime() + 86400_000),
      });
      t.clock.advance(t.config.checkoutSessionTtlSeconds * 1000);
      const got = await api(w.ws.merchantKey).get(s.id);
      expect(got.status).toBe(200);
      expectValid('CheckoutSession', got.body);
      expect(got.body.status).toBe('expired');
      expect(got.body.messages).toEqual([
        expect.objectContaining({ type: 'error', code: 'expired' }),
      ]);
      expect((await sessionRow(s.id)).status).toBe('expired');

      const complete = await api(w.ws.merchantKey).complete(s.id, payment(tok));
      expect(complete.status).toBe(400);
      expect(complete.body.code).toBe('invalid_state');
      expect(await tokenStatus(tok)).toBe('usable');
      const update = await api(w.ws.merchantKey).update(s.id, {});
      expect(update.status).toBe(400);
      expect(update.body.code).toBe('invalid_state');
      const cancel = await api(w.ws.merchantKey).cancel(s.id);
      expect(cancel.status).toBe(200);
      expect(cancel.body.status).toBe('canceled');
    });

    it('complete just before expires_at still pays', async () => {
      const w = await world();
      const s = await openSession(w, [{ id: 'biscuits' }]);
      const tok = await token(w, { sessionId: s.id });
      t.clock.advance(t.config.checkoutSessionTtlSeconds * 1000 - 5_000);
      const res = await api(w.ws.merchantKey).complete(s.id, payment(tok));
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('completed');
    });
  });

  describe('documents and pages', () => {
    it('serves the discovery document: public, cacheable, schema-valid, no merchant ids', async () => {
      const res = await request(t.url).get('/.well-known/acp.json');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['cache-control']).toBe('public, max-age=3600');
      expectValid('DiscoveryResponse', res.body);
      expect(res.body).toEqual({
        protocol: {
          name: 'acp',
          version: '2026-04-17',
          supported_versions: ['2026-04-17'],
          documentation_url: `${t.config.baseUrl}/docs`,
        },
        api_base_url: `${t.config.baseUrl}/acp`,
        transports: ['rest', 'mcp'],
        capabilities: {
          services: ['checkout', 'orders', 'delegate_payment'],
          supported_currencies: ['inr'],
          supported_locales: ['en-IN'],
        },
      });
      expect(JSON.stringify(res.body)).not.toMatch(/agt_|svc_upi_mandate/);
    });

    it('every handler URL in a session resolves; the schemas are JSON Schemas our own objects satisfy', async () => {
      const w = await world();
      const s = await openSession(w);
      const handler = s.capabilities.payment.handlers[0] as {
        spec: string;
        config_schema: string;
        instrument_schemas: string[];
        config: unknown;
      };
      const spec = await request(handler.spec).get('');
      expect(spec.status).toBe(200);
      expect(spec.headers['content-type']).toMatch(/^text\/html/);
      expect(spec.text).toContain('svc_upi_mandate');
      expect(spec.text).toContain('requires_buyer_review');

      const ajv = new Ajv2020({ strict: true, allErrors: true });
      addFormats(ajv);
      const configRes = await request(handler.config_schema).get('');
      expect(configRes.status).toBe(200);
      expect(configRes.headers['content-type']).toMatch(/^application\/schema\+json/);
      const configSchema = JSON.parse(configRes.text) as object;
      const validateConfig = ajv.compile(configSchema);
      expect(validateConfig(handler.config)).toBe(true);
      expect(validateConfig({ ...(handler.config as object), merchant_id: 'nope' })).toBe(false);

      expect(handler.instrument_schemas).toHaveLength(1);
      const instrumentRes = await request(handler.instrument_schemas[0]).get('');
      expect(instrumentRes.status).toBe(200);
      const validateInstrument = ajv.compile(JSON.parse(instrumentRes.text) as object);
      const instrument = payment('vt_abc123').payment_data.instrument;
      expect(validateInstrument(instrument)).toBe(true);
      expect(
        validateInstrument({ ...instrument, credential: { type: 'spt', token: 'vt_abc' } }),
      ).toBe(true);
      expect(
        validateInstrument({ type: 'card', credential: { type: 'spt', token: 'vt_abc' } }),
      ).toBe(false);
      expect(
        validateInstrument({ type: 'svc_mandate', credential: { type: 'spt', token: 'tok-1' } }),
      ).toBe(false);
    });

    it('the terms and privacy links resolve to pages', async () => {
      const w = await world();
      const s = await openSession(w);
      for (const link of s.links) {
        const res = await request(link.url).get('');
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toMatch(/^text\/html/);
        expect(res.text).toContain(
          link.type === 'terms_of_use' ? 'Terms of use' : 'Privacy policy',
        );
      }
    });

    it('the order permalink shows the order, the total in rupees and the receipt with its chain hashes', async () => {
      const w = await world();
      const s = await openSession(w, [{ id: 'tea', quantity: 2 }]);
      const tok = await token(w, { sessionId: s.id });
      const done = await api(w.ws.merchantKey).complete(s.id, payment(tok));
      const receiptId = done.body.metadata.svc_receipt_id as string;
      const page = await request(done.body.order.permalink_url as string).get('');
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.text).toContain(done.body.order.id);
      expect(page.text).toContain(receiptId);
      expect(page.text).toContain('Chai Co');
      expect(page.text).toContain('Assam tea 1 kg');
      expect(page.text).toContain('₹900.00');
      const [entry] = await t.get(ChainService).entries(receiptId);
      expect(page.text).toContain(entry.hash);
      expect(page.text).toContain(`${t.config.baseUrl}/.well-known/jwks.json`);
      expect(page.text).not.toContain(tok);
      expect(page.text).not.toContain(w.mandateId);

      const missing = await request(t.url).get('/app/orders/ord_doesnotexist');
      expect(missing.status).toBe(404);
    });
  });
});
