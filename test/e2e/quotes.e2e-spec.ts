import { randomUUID } from 'node:crypto';

import request from 'supertest';

import { ApprovalsService } from '../../src/approvals/approvals.service';
import { ChainService } from '../../src/chains/chain.service';
import { QuotesService } from '../../src/quotes/quotes.service';
import { bearer } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { createOffer, OfferRow } from '../factories/offer.factory';
import { startApp, TestApp } from '../support/app';
import { keyPair, SeededWorkspace, seedWorkspace, signHeaders } from '../support/seed';

/**
 * Quotes over HTTP: from a published offer (buyer asks) and free-form (seller quotes, signed when
 * it registered a key); paying one through the shared pipeline, person approval above ₹2,000,
 * and every way a quote refuses to be paid.
 */
describe('QuotesService (HTTP)', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  /** Another tenant: its buyer must never see or pay ws's quotes. */
  let other: SeededWorkspace;
  let offer: OfferRow;
  let mandateId: string;

  beforeAll(async () => {
    t = await startApp();
    ws = await seedWorkspace(t);
    other = await seedWorkspace(t);
    offer = await createOffer(t, ws.seller.id, {
      sku: 'chai-250g',
      name: 'Masala chai, 250 g',
      unitPaise: 45_000,
    });
    mandateId = await createMandate(t, { workspaceId: ws.workspaceId, agentId: ws.buyer.id });
  });
  afterAll(() => t.close());
  afterEach(() => t.clock.reset());

  const idem = () => ({ 'Idempotency-Key': `idem-${randomUUID()}` });

  async function count(sql: string, params: unknown[]): Promise<number> {
    const [{ n }] = await t.db.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM ${sql}`,
      params,
    );
    return n;
  }

  async function quoteFromOffer(buyer = ws.buyer, sku = offer.sku) {
    return request(t.url)
      .post(`/v1/pay/sellers/${ws.seller.id}/quotes`)
      .set(bearer(buyer.credential))
      .send({ sku });
  }

  async function freeForm(amountPaise: number, body: Record<string, unknown> = {}) {
    return request(t.url)
      .post('/v1/pay/quotes')
      .set(bearer(ws.seller.credential))
      .send({
        buyer_agent_id: ws.buyer.id,
        category: 'services.consulting',
        items: [{ name: 'Consultation', unit_paise: amountPaise }],
        ...body,
      });
  }

  function pay(
    quoteId: string,
    body: Record<string, unknown> = { mandate_id: mandateId },
    credential = ws.buyer.credential,
  ) {
    return request(t.url)
      .post(`/v1/pay/quotes/${quoteId}/pay`)
      .set({ ...bearer(credential), ...idem() })
      .send(body);
  }

  describe('from a published offer', () => {
    it('quotes the published price, quantity 1, to the calling buyer only, valid 15 minutes', async () => {
      const before = t.clock.now().getTime();
      const res = await quoteFromOffer();
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^qt_/),
        object: 'quote',
        status: 'open',
        origin: 'offer',
        seller_agent_id: ws.seller.id,
        seller_name: 'Chai Co',
        buyer_agent_id: ws.buyer.id,
        category: 'food.beverages',
        amount_paise: 45_000,
        currency: 'INR',
        line_items: [
          {
            name: 'Masala chai, 250 g',
            quantity: 1,
            unit_paise: 45_000,
            amount_paise: 45_000,
            sku: 'chai-250g',
          },
        ],
        expires_at: expect.any(String),
        created_at: expect.any(String),
        intent_id: null,
        paid_at: null,
        canceled_at: null,
        pay_url: `${t.config.appUrl}/pay/${res.body.id as string}`,
      });
      const ttl = Date.parse(res.body.expires_at) - Date.parse(res.body.created_at);
      expect(ttl).toBe(15 * 60 * 1000);
      expect(Date.parse(res.body.created_at)).toBeGreaterThanOrEqual(before);
      const [row] = await t.db.query<
        { buyer_agent_id: string; offer_id: string; status: string; amount_paise: string }[]
      >('SELECT buyer_agent_id, offer_id, status, amount_paise FROM quotes WHERE id = $1', [
        res.body.id,
      ]);
      expect(row).toEqual({
        buyer_agent_id: ws.buyer.id,
        offer_id: offer.id,
        status: 'open',
        amount_paise: '45000',
      });
    });

    it('refuses an unknown sku (400, $.sku) and an unlisted seller (404), storing nothing', async () => {
      const before = await count('quotes WHERE seller_agent_id = $1', [ws.seller.id]);
      const sku = await quoteFromOffer(ws.buyer, 'no-such-sku');
      expect(sku.status).toBe(400);
      expect(sku.body.error).toMatchObject({ code: 'offer_not_found', param: '$.sku' });
      const unlisted = await request(t.url)
        .post(`/v1/pay/sellers/${other.seller.id}/quotes`)
        .set(bearer(ws.buyer.credential))
        .send({ sku: 'chai-250g' });
      expect(unlisted.status).toBe(404);
      expect(unlisted.body.error.code).toBe('seller_not_found');
      expect(await count('quotes WHERE seller_agent_id = $1', [ws.seller.id])).toBe(before);
    });

    it('ignores withdrawn offers and delisted sellers', async () => {
      const seller = await seedWorkspace(t);
      const inactive = await createOffer(t, seller.seller.id, { active: false });
      const res = await request(t.url)
        .post(`/v1/pay/sellers/${seller.seller.id}/quotes`)
        .set(bearer(ws.buyer.credential))
        .send({ sku: inactive.sku });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('offer_not_found');
      const live = await createOffer(t, seller.seller.id, { listed: false });
      const delisted = await request(t.url)
        .post(`/v1/pay/sellers/${seller.seller.id}/quotes`)
        .set(bearer(ws.buyer.credential))
        .send({ sku: live.sku });
      expect(delisted.status).toBe(404);
    });

    it('takes a buyer agent credential only', async () => {
      const asSeller = await quoteFromOffer(ws.seller);
      expect(asSeller.status).toBe(403);
      expect(asSeller.body.error.code).toBe('wrong_agent_role');
      const asApiKey = await request(t.url)
        .post(`/v1/pay/sellers/${ws.seller.id}/quotes`)
        .set(bearer(ws.apiKey))
        .send({ sku: offer.sku });
      expect(asApiKey.status).toBe(403);
      const bad = await request(t.url)
        .post(`/v1/pay/sellers/${ws.seller.id}/quotes`)
        .set(bearer(ws.buyer.credential))
        .send({ sku: 'chai-250g', amount_paise: 1 });
      expect(bad.status).toBe(400);
      expect(bad.body.error.param).toBe('$.amount_paise');
    });

    it('is readable by the seller and the addressed buyer only; another buyer can neither read nor pay it', async () => {
      const q = (await quoteFromOffer()).body;
      expect(
        (await request(t.url).get(`/v1/pay/quotes/${q.id}`).set(bearer(ws.seller.credential)))
          .status,
      ).toBe(200);
      const mine = await request(t.url)
        .get(`/v1/pay/quotes/${q.id}`)
        .set(bearer(ws.buyer.credential));
      expect(mine.status).toBe(200);
      expect(mine.body.id).toBe(q.id);
      const foreign = await request(t.url)
        .get(`/v1/pay/quotes/${q.id}`)
        .set(bearer(other.buyer.credential));
      expect(foreign.status).toBe(404);
      expect(foreign.body.error.code).toBe('quote_not_found');
      const otherMandate = await createMandate(t, {
        workspaceId: other.workspaceId,
        agentId: other.buyer.id,
      });
      const foreignPay = await pay(q.id, { mandate_id: otherMandate }, other.buyer.credential);
      expect(foreignPay.status).toBe(404);
      expect(foreignPay.body.error.code).toBe('quote_not_found');
      expect(
        await count("payment_intents WHERE source_kind = 'quote' AND source_id = $1", [q.id]),
      ).toBe(0);
    });

    it('expires after 15 minutes: shown expired and refused for payment', async () => {
      const q = (await quoteFromOffer()).body;
      t.clock.advance(15 * 60 * 1000 - 1000);
      expect(
        (await request(t.url).get(`/v1/pay/quotes/${q.id}`).set(bearer(ws.buyer.credential))).body
          .status,
      ).toBe('open');
      t.clock.advance(1000);
      const read = await request(t.url)
        .get(`/v1/pay/quotes/${q.id}`)
        .set(bearer(ws.buyer.credential));
      expect(read.body.status).toBe('expired');
      const res = await pay(q.id);
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({
        code: 'quote_expired',
        message: expect.stringContaining('fresh'),
      });
      expect(await count('payment_intents WHERE source_id = $1', [q.id])).toBe(0);
      const view = await t.get(QuotesService).getPublicView(q.id);
      expect(view).toMatchObject({
        payable: false,
        reason: expect.stringContaining('expired'),
        rail: 'sandbox',
        checkout: null,
      });
    });
  });

  describe('free-form, by the seller', () => {
    it('quotes an item list to a buyer agent with the default 15-minute validity', async () => {
      const res = await request(t.url)
        .post('/v1/pay/quotes')
        .set(bearer(ws.seller.credential))
        .send({
          buyer_agent_id: other.buyer.id,
          category: 'services.consulting',
          items: [
            { name: 'Design review', unit_paise: 50_000, quantity: 2 },
            { name: 'Travel', unit_paise: 12_345 },
          ],
        });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        status: 'open',
        origin: 'seller',
        seller_agent_id: ws.seller.id,
        seller_name: 'Chai Co',
        buyer_agent_id: other.buyer.id,
        category: 'services.consulting',
        amount_paise: 112_345,
        currency: 'INR',
        line_items: [
          { name: 'Design review', quantity: 2, unit_paise: 50_000, amount_paise: 100_000 },
          { name: 'Travel', quantity: 1, unit_paise: 12_345, amount_paise: 12_345 },
        ],
      });
      expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBe(900_000);
      const custom = await freeForm(1000, { expires_in_seconds: 3600 });
      expect(Date.parse(custom.body.expires_at) - Date.parse(custom.body.created_at)).toBe(
        3_600_000,
      );
    });

    it.each([
      ['no items', { items: [] }, '$.items'],
      [
        '51 items',
        { items: Array.from({ length: 51 }, () => ({ name: 'x', unit_paise: 1 })) },
        '$.items',
      ],
      ['unit_paise 0', { items: [{ name: 'x', unit_paise: 0 }] }, '$.items[0].unit_paise'],
      ['negative unit_paise', { items: [{ name: 'x', unit_paise: -5 }] }, '$.items[0].unit_paise'],
      [
        'fractional unit_paise',
        { items: [{ name: 'x', unit_paise: 10.5 }] },
        '$.items[0].unit_paise',
      ],
      [
        'unit_paise as a string',
        { items: [{ name: 'x', unit_paise: '100' }] },
        '$.items[0].unit_paise',
      ],
      [
        'unit_paise above 2^53',
        { items: [{ name: 'x', unit_paise: 2 ** 60 }] },
        '$.items[0].unit_paise',
      ],
      ['an empty name', { items: [{ name: '', unit_paise: 100 }] }, '$.items[0].name'],
      [
        'a 201-char name',
        { items: [{ name: 'x'.repeat(201), unit_paise: 100 }] },
        '$.items[0].name',
      ],
      [
        'quantity 0',
        { items: [{ name: 'x', unit_paise: 100, quantity: 0 }] },
        '$.items[0].quantity',
      ],
      ['expiry under 60 s', { expires_in_seconds: 59 }, '$.expires_in_seconds'],
      ['expiry over a day', { expires_in_seconds: 86_401 }, '$.expires_in_seconds'],
      ['a malformed category', { category: 'Not A Category' }, '$.category'],
      ['a status field', { status: 'paid' }, '$.status'],
      ['an amount_paise field', { amount_paise: 1 }, '$.amount_paise'],
      ['a seller_name field', { seller_name: 'Someone else' }, '$.seller_name'],
    ] as [string, Record<string, unknown>, string][])(
      'refuses %s, naming %s, storing nothing',
      async (_label, patch, param) => {
        const before = await count('quotes WHERE seller_agent_id = $1', [ws.seller.id]);
        const res = await freeForm(1000, patch);
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({ type: 'invalid_request', param });
        expect(await count('quotes WHERE seller_agent_id = $1', [ws.seller.id])).toBe(before);
      },
    );

    it('refuses a total a JS number cannot hold exactly (400 amount_too_large)', async () => {
      const res = await freeForm(1, {
        items: [{ name: 'a', unit_paise: 1_000_000_000_000, quantity: 10_000 }],
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'amount_too_large', param: '$.items' });
    });

    it('refuses an unknown buyer, a seller-only agent as buyer, and a buyer credential', async () => {
      const unknown = await freeForm(1000, { buyer_agent_id: 'agt_nope' });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error).toMatchObject({
        code: 'buyer_not_found',
        param: '$.buyer_agent_id',
      });
      const sellerAsBuyer = await freeForm(1000, { buyer_agent_id: other.seller.id });
      expect(sellerAsBuyer.body.error.code).toBe('buyer_not_found');
      const asBuyer = await request(t.url)
        .post('/v1/pay/quotes')
        .set(bearer(ws.buyer.credential))
        .send({
          buyer_agent_id: other.buyer.id,
          category: 'x',
          items: [{ name: 'x', unit_paise: 1 }],
        });
      expect(asBuyer.status).toBe(403);
      expect(asBuyer.body.error.code).toBe('wrong_agent_role');
    });

    describe('when the seller registered a public key', () => {
      let signer: SeededWorkspace;
      const { privateKey, publicPem } = keyPair('ed25519');
      const body = () => ({
        buyer_agent_id: ws.buyer.id,
        category: 'services.signed',
        items: [{ name: 'Signed item', unit_paise: 7_000 }],
      });

      beforeAll(async () => {
        signer = await seedWorkspace(t);
        const res = await request(t.url)
          .post(`/v1/pay/agents/${signer.seller.id}/public-key`)
          .set(bearer(signer.apiKey))
          .send({ public_key: publicPem });
        expect(res.status).toBe(200);
        expect(res.body.public_key_alg).toBe('ed25519');
      });

      it('accepts a request with a valid Ed25519 signature', async () => {
        const b = body();
        const res = await request(t.url)
          .post('/v1/pay/quotes')
          .set({
            ...bearer(signer.seller.credential),
            ...signHeaders(privateKey, 'ed25519', 'POST', '/v1/pay/quotes', b),
          })
          .send(b);
        expect(res.status).toBe(201);
        expect(res.body).toMatchObject({ seller_agent_id: signer.seller.id, amount_paise: 7_000 });
      });

      it('refuses an unsigned request with 401 invalid_signature', async () => {
        const res = await request(t.url)
          .post('/v1/pay/quotes')
          .set(bearer(signer.seller.credential))
          .send(body());
        expect(res.status).toBe(401);
        expect(res.body.error.code).toBe('invalid_signature');
        expect(await count('quotes WHERE seller_agent_id = $1', [signer.seller.id])).toBe(1);
      });

      it('refuses a tampered body with 401', async () => {
        const signed = body();
        const headers = signHeaders(privateKey, 'ed25519', 'POST', '/v1/pay/quotes', signed);
        const res = await request(t.url)
          .post('/v1/pay/quotes')
          .set({ ...bearer(signer.seller.credential), ...headers })
          .send({ ...signed, items: [{ name: 'Signed item', unit_paise: 1 }] });
        expect(res.status).toBe(401);
        expect(res.body.error.code).toBe('invalid_signature');
        expect(await count('quotes WHERE seller_agent_id = $1', [signer.seller.id])).toBe(1);
      });

      it('requires the signature on reads too', async () => {
        const [{ id }] = await t.db.query<{ id: string }[]>(
          'SELECT id FROM quotes WHERE seller_agent_id = $1',
          [signer.seller.id],
        );
        const unsigned = await request(t.url)
          .get(`/v1/pay/quotes/${id}`)
          .set(bearer(signer.seller.credential));
        expect(unsigned.status).toBe(401);
        const path = `/v1/pay/quotes/${id}`;
        const signed = await request(t.url)
          .get(path)
          .set({
            ...bearer(signer.seller.credential),
            ...signHeaders(privateKey, 'ed25519', 'GET', path, undefined),
          });
        expect(signed.status).toBe(200);
      });
    });
  });

  describe('paying', () => {
    it('settles at or below ₹2,000: quote paid, one rail debit, a signed receipt, intent.settled', async () => {
      const q = (await quoteFromOffer()).body;
      const res = await pay(q.id);
      expect(res.status).toBe(200);
      expect(res.body.intent).toEqual({
        id: expect.stringMatching(/^pi_/),
        status: 'settled',
        amount_paise: 45_000,
        decline_code: null,
        decline_reason: null,
        receipt_id: expect.stringMatching(/^rcp_/),
        approval_id: null,
      });
      expect(res.body.quote).toMatchObject({
        id: q.id,
        status: 'paid',
        intent_id: res.body.intent.id,
        paid_at: expect.any(String),
      });
      const intentId = res.body.intent.id as string;
      const [intent] = await t.db.query<Record<string, string>[]>(
        'SELECT status, source_kind, source_id, amount_paise, mandate_id, receipt_id FROM payment_intents WHERE id = $1',
        [intentId],
      );
      expect(intent).toEqual({
        status: 'settled',
        source_kind: 'quote',
        source_id: q.id,
        amount_paise: '45000',
        mandate_id: mandateId,
        receipt_id: res.body.intent.receipt_id,
      });
      expect(
        await count(
          "rail_transfers WHERE intent_id = $1 AND direction = 'debit' AND status = 'succeeded'",
          [intentId],
        ),
      ).toBe(1);
      expect(
        await count(
          "outbox_events WHERE type = 'intent.settled' AND subject_id = $1 AND agent_id = $2",
          [intentId, ws.seller.id],
        ),
      ).toBe(1);
      const receipt = await request(t.url)
        .get(`/v1/pay/receipts/${intent.receipt_id}`)
        .set(bearer(ws.seller.credential));
      expect(receipt.status).toBe(200);
      expect(receipt.body.entries).toHaveLength(1);
      expect(receipt.body.entries[0].payload).toMatchObject({
        type: 'payment.settled',
        quote_id: q.id,
        line_items: [
          {
            name: 'Masala chai, 250 g',
            quantity: 1,
            unit_paise: 45_000,
            amount_paise: 45_000,
            sku: 'chai-250g',
          },
        ],
      });
      expect(await t.get(ChainService).verify(intent.receipt_id)).toMatchObject({
        valid: true,
        length: 1,
      });
      const stored = await request(t.url)
        .get(`/v1/pay/quotes/${q.id}`)
        .set(bearer(ws.seller.credential));
      expect(stored.body).toMatchObject({ status: 'paid', intent_id: intentId });
    });

    it('replays a retried pay with the same Idempotency-Key instead of paying twice', async () => {
      const q = (await freeForm(2_000)).body;
      const key = { 'Idempotency-Key': `idem-${randomUUID()}` };
      const first = await request(t.url)
        .post(`/v1/pay/quotes/${q.id}/pay`)
        .set({ ...bearer(ws.buyer.credential), ...key })
        .send({ mandate_id: mandateId });
      const again = await request(t.url)
        .post(`/v1/pay/quotes/${q.id}/pay`)
        .set({ ...bearer(ws.buyer.credential), ...key })
        .send({ mandate_id: mandateId });
      expect(again.status).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body.intent.id).toBe(first.body.intent.id);
      expect(await count('payment_intents WHERE source_id = $1', [q.id])).toBe(1);
    });

    it("waits for the buyer's person above ₹2,000, then pays the quote when approved", async () => {
      const q = (await freeForm(250_000)).body;
      const res = await pay(q.id);
      expect(res.status).toBe(200);
      expect(res.body.intent).toMatchObject({
        status: 'requires_approval',
        approval_id: expect.stringMatching(/^apr_/),
        receipt_id: null,
      });
      expect(res.body.quote).toMatchObject({
        status: 'pending_approval',
        intent_id: res.body.intent.id,
      });
      const [approval] = await t.db.query<
        { id: string; kind: string; workspace_id: string; status: string; amount_paise: string }[]
      >(
        'SELECT id, kind, workspace_id, status, amount_paise FROM approvals WHERE subject_id = $1',
        [res.body.intent.id],
      );
      expect(approval).toEqual({
        id: res.body.intent.approval_id,
        kind: 'payment',
        workspace_id: ws.workspaceId,
        status: 'pending',
        amount_paise: '250000',
      });
      expect(await count('rail_transfers WHERE intent_id = $1', [res.body.intent.id])).toBe(0);
      const again = await pay(q.id);
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('quote_pending_approval');

      await t.get(ApprovalsService).decide(ws.workspaceId, approval.id, ws.personId, 'approved');
      const after = await request(t.url)
        .get(`/v1/pay/quotes/${q.id}`)
        .set(bearer(ws.buyer.credential));
      expect(after.body).toMatchObject({
        status: 'paid',
        intent_id: res.body.intent.id,
        paid_at: expect.any(String),
      });
      const [intent] = await t.db.query<{ status: string }[]>(
        'SELECT status FROM payment_intents WHERE id = $1',
        [res.body.intent.id],
      );
      expect(intent.status).toBe('settled');
      expect(
        await count("outbox_events WHERE type = 'intent.settled' AND subject_id = $1", [
          res.body.intent.id,
        ]),
      ).toBe(1);
    });

    it('returns the quote to open when the person denies the payment', async () => {
      const q = (await freeForm(300_000)).body;
      const res = await pay(q.id);
      await t
        .get(ApprovalsService)
        .decide(ws.workspaceId, res.body.intent.approval_id, ws.personId, 'denied');
      const after = await request(t.url)
        .get(`/v1/pay/quotes/${q.id}`)
        .set(bearer(ws.buyer.credential));
      expect(after.body).toMatchObject({ status: 'open', intent_id: null });
      const [intent] = await t.db.query<{ status: string; decline_code: string }[]>(
        'SELECT status, decline_code FROM payment_intents WHERE id = $1',
        [res.body.intent.id],
      );
      expect(intent).toEqual({ status: 'declined', decline_code: 'approval_denied' });
    });

    it('answers a rules decline with 200 intent.status declined and leaves the quote open', async () => {
      const small = await createMandate(
        t,
        { workspaceId: ws.workspaceId, agentId: ws.buyer.id },
        { perPaymentCapPaise: 1_000 },
      );
      const q = (await freeForm(5_000)).body;
      const res = await pay(q.id, { mandate_id: small });
      expect(res.status).toBe(200);
      expect(res.body.intent).toMatchObject({
        status: 'declined',
        decline_code: 'mandate_cap_exceeded',
        decline_reason: expect.any(String),
        receipt_id: null,
      });
      expect(res.body.quote).toMatchObject({ status: 'open', intent_id: null });
      expect(await count('rail_transfers WHERE intent_id = $1', [res.body.intent.id])).toBe(0);
      expect(await count('outbox_events WHERE subject_id = $1', [res.body.intent.id])).toBe(0);
      const retry = await pay(q.id);
      expect(retry.body.intent.status).toBe('settled');
    });

    it('answers a rail failure with 200 intent.status failed and leaves the quote open', async () => {
      const q = (await freeForm(1_051)).body;
      const res = await pay(q.id);
      expect(res.status).toBe(200);
      expect(res.body.intent).toMatchObject({
        status: 'failed',
        decline_code: 'insufficient_funds',
      });
      expect(res.body.quote.status).toBe('open');
    });

    it("refuses a mandate that is not the buyer's (404 mandate_not_found) and a missing one (400)", async () => {
      const q = (await freeForm(1_000)).body;
      const foreign = await createMandate(t, {
        workspaceId: other.workspaceId,
        agentId: other.buyer.id,
      });
      const res = await pay(q.id, { mandate_id: foreign });
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'mandate_not_found', param: '$.mandate_id' });
      const missing = await pay(q.id, {});
      expect(missing.status).toBe(400);
      expect(missing.body.error.param).toBe('$.mandate_id');
      expect(await count('payment_intents WHERE source_id = $1', [q.id])).toBe(0);
    });

    it('refuses paid and canceled quotes', async () => {
      const paid = (await freeForm(1_000)).body;
      await pay(paid.id);
      const twice = await pay(paid.id);
      expect(twice.status).toBe(409);
      expect(twice.body.error.code).toBe('quote_already_paid');

      const q = (await freeForm(1_000)).body;
      const notYours = await request(t.url)
        .post(`/v1/pay/quotes/${q.id}/cancel`)
        .set(bearer(ws.buyer.credential));
      expect(notYours.status).toBe(404);
      const canceled = await request(t.url)
        .post(`/v1/pay/quotes/${q.id}/cancel`)
        .set({ ...bearer(ws.seller.credential), ...idem() });
      expect(canceled.status).toBe(200);
      expect(canceled.body).toMatchObject({ status: 'canceled', canceled_at: expect.any(String) });
      const res = await pay(q.id);
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('quote_canceled');
      const again = await request(t.url)
        .post(`/v1/pay/quotes/${q.id}/cancel`)
        .set(bearer(ws.seller.credential));
      expect(again.status).toBe(409);
      const cancelPaid = await request(t.url)
        .post(`/v1/pay/quotes/${paid.id}/cancel`)
        .set(bearer(ws.seller.credential));
      expect(cancelPaid.status).toBe(409);
      expect(cancelPaid.body.error.code).toBe('quote_already_paid');
      expect(await count('payment_intents WHERE source_id = $1', [q.id])).toBe(0);
    });

    it('withdraws a payment waiting for approval when the seller cancels the quote', async () => {
      const q = (await freeForm(260_000)).body;
      const res = await pay(q.id);
      const canceled = await request(t.url)
        .post(`/v1/pay/quotes/${q.id}/cancel`)
        .set(bearer(ws.seller.credential));
      expect(canceled.status).toBe(200);
      expect(canceled.body).toMatchObject({ status: 'canceled', intent_id: null });
      const [intent] = await t.db.query<{ status: string }[]>(
        'SELECT status FROM payment_intents WHERE id = $1',
        [res.body.intent.id],
      );
      expect(intent.status).toBe('declined');
      const [approval] = await t.db.query<{ status: string }[]>(
        'SELECT status FROM approvals WHERE id = $1',
        [res.body.intent.approval_id],
      );
      expect(approval.status).toBe('withdrawn');
    });

    it('gives the hosted page a public view that says whether the quote is payable', async () => {
      const quotes = t.get(QuotesService);
      const q = (await freeForm(1_000)).body;
      expect(await quotes.getPublicView(q.id)).toMatchObject({
        quote: { id: q.id, seller_name: 'Chai Co', currency: 'INR', status: 'open' },
        rail: 'sandbox',
        mode: 'test',
        payable: true,
        reason: null,
        checkout: null,
      });
      await pay(q.id);
      expect(await quotes.getPublicView(q.id)).toMatchObject({
        payable: false,
        reason: expect.stringContaining('paid'),
      });
      await expect(quotes.getPublicView('qt_nope')).rejects.toMatchObject({
        status: 404,
        code: 'quote_not_found',
      });
    });
  });
});
