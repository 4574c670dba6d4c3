import { createServer, request as httpRequest, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { JSONWebKeySet } from 'jose';
import request from 'supertest';

import { verifyChain } from '../../src/chains/verify-chain';
import { CaptureRefunds } from '../../src/gateway/capture-refunds';
import type { GatewayClient } from '../../src/rails/gateway/gateway-client';
import { GATEWAY_CLIENT } from '../../src/rails/gateway/gateway-rail';
import { bearer } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { startApp, TestApp } from '../support/app';
import { startTestGateway, TestGateway } from '../support/gateway';
import {
  createQuote,
  GatewayApp,
  gatewayConfig,
  startGatewayApp,
  waitFor,
} from '../support/gateway-app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * Gateway payment links for quotes (docs/gateway.md "Payment links"), against the gateway simulator over
 * real HTTP: the quote's seller asks for a link (the gateway holds it for the quote's exact amount,
 * expiring with the quote; a retry or a second call gets the same live link); the payer pays it on
 * the gateway's page and the gateway's webhooks settle the quote through the one pipeline exactly
 * like the hosted page (person-on-page authority, signed receipt, intent.settled, quote paid),
 * once, whatever the duplicates and order of the webhooks. Quotes that cannot be paid, other
 * callers and the sandbox rail are refused with nothing written.
 */
describe('payment links on the gateway rail', () => {
  let app: GatewayApp;
  let ws: SeededWorkspace;

  beforeAll(async () => {
    app = await startGatewayApp({ overrides: { webhookDispatchIntervalMs: 100 } });
    ws = await seedWorkspace(app.t);
  });
  afterAll(() => app?.close());
  afterEach(async () => {
    app.t.clock.reset();
    await app.gw.sim.control.webhooksIdle();
    app.gw.sim.control.webhooks({ drop: false, duplicate: 0, reverse_order: false });
  });

  const one = async <T>(sql: string, params: unknown[]): Promise<T> =>
    (await app.t.db.query<T[]>(sql, params))[0];
  const count = async (sql: string, params: unknown[] = []) =>
    (await one<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params)).n;
  const simLinks = () => app.gw.sim.control.state().payment_links;

  const createLink = (quoteId: string, credential = ws.seller.credential, key?: string) => {
    const req = request(app.t.url)
      .post(`/v1/pay/quotes/${quoteId}/payment-link`)
      .set(bearer(credential));
    return (key ? req.set('Idempotency-Key', key) : req).send();
  };
  const getLink = (quoteId: string, credential = ws.seller.credential) =>
    request(app.t.url).get(`/v1/pay/quotes/${quoteId}/payment-link`).set(bearer(credential));

  type Link = { id: string; gateway_link_id: string; gateway_order_id: string; url: string };
  async function linkFor(amountPaise: number, w: SeededWorkspace = ws) {
    const quoteId = await createQuote(app.t, w, amountPaise);
    const res = await createLink(quoteId, w.seller.credential);
    expect(res.status).toBe(200);
    return { quoteId, link: res.body as Link & Record<string, unknown> };
  }

  async function paidOnLink(gatewayLinkId: string) {
    await app.gw.sim.control.payLink(gatewayLinkId);
    await app.gw.sim.control.webhooksIdle();
  }

  it('creates a link for the quote’s exact amount and expiry; a retry and a second call get the same link', async () => {
    const quoteId = await createQuote(app.t, ws, 12_345);
    const quote = (await getQuote(quoteId)).body as { expires_at: string };
    const first = await createLink(quoteId, ws.seller.credential, 'link-key-1');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      id: expect.stringMatching(/^plk_/) as string,
      object: 'payment_link',
      quote_id: quoteId,
      status: 'created',
      amount_paise: 12_345,
      currency: 'INR',
      url: expect.stringMatching(/\/l\/plink_/) as string,
      gateway_link_id: expect.stringMatching(/^plink_/) as string,
      gateway_order_id: expect.stringMatching(/^order_/) as string,
      intent_id: null,
      receipt_id: null,
      expires_at: quote.expires_at,
    });
    const link = first.body as Link;
    // The gateway holds it: exact amount, the quote's expiry, our id as reference, callback to us.
    const held = await app.gw.client.getPaymentLink(link.gateway_link_id);
    expect(held).toMatchObject({
      status: 'created',
      amount: 12_345,
      currency: 'INR',
      reference_id: link.id,
      order_id: link.gateway_order_id,
      expire_by: Math.floor(Date.parse(quote.expires_at) / 1000),
      callback_url: `${app.t.config.appUrl}/pay/${quoteId}/status?checkout=${link.id}`,
      callback_method: 'get',
    });
    expect(await app.gw.client.getOrder(link.gateway_order_id)).toMatchObject({
      amount: 12_345,
      receipt: link.id,
    });
    expect(
      await one('SELECT kind, subject_id FROM gateway_orders WHERE id = $1', [
        link.gateway_order_id,
      ]),
    ).toEqual({ kind: 'hosted', subject_id: link.id });

    // The same Idempotency-Key replays the answer; another call returns the live link.
    const replay = await createLink(quoteId, ws.seller.credential, 'link-key-1');
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    const second = await createLink(quoteId, ws.seller.credential, 'link-key-2');
    expect(second.body).toMatchObject({ id: link.id, gateway_link_id: link.gateway_link_id });
    const third = await createLink(quoteId);
    expect(third.body).toMatchObject({ id: link.id, gateway_link_id: link.gateway_link_id });
    expect(simLinks().filter((l) => l.reference_id === link.id)).toHaveLength(1);
    expect(await count(`hosted_checkouts WHERE quote_id = $1`, [quoteId])).toBe(1);
    // A live link does not stand in the way of the hosted page, and is not the page's checkout.
    const page = await request(app.t.url).get(`/v1/public/pay/quotes/${quoteId}`);
    expect(page.body).toMatchObject({ payable: true, checkout: null });
    const got = await getLink(quoteId);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(first.body);
  });

  it('ten concurrent calls for one quote make one link', async () => {
    const quoteId = await createQuote(app.t, ws, 13_000);
    const answers = await Promise.all(Array.from({ length: 10 }, () => createLink(quoteId)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    const ids = new Set(answers.map((a) => `${a.body.id}/${a.body.gateway_link_id}`));
    expect(ids.size).toBe(1);
    expect(await count(`hosted_checkouts WHERE quote_id = $1`, [quoteId])).toBe(1);
    expect(simLinks().filter((l) => l.reference_id === answers[0].body.id)).toHaveLength(1);
  });

  it('a link the gateway refuses (4xx) is 409 payment_link_refused and ends that row; the next call makes a fresh link', async () => {
    const quoteId = await createQuote(app.t, ws, 14_000);
    // The gateway's clock is past the quote's expiry, so it refuses expire_by.
    app.gw.sim.control.clock.advance(20 * 60_000);
    try {
      const refused = await createLink(quoteId);
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('payment_link_refused');
    } finally {
      app.gw.sim.control.clock.set(Date.now());
    }
    const [row] = await app.t.db.query<{ id: string; status: string; failure_code: string }[]>(
      `SELECT id, status, failure_code FROM hosted_checkouts WHERE quote_id = $1`,
      [quoteId],
    );
    expect(row).toMatchObject({ status: 'expired', failure_code: 'payment_link_refused' });
    const fresh = await createLink(quoteId);
    expect(fresh.status).toBe(200);
    expect(fresh.body).toMatchObject({ status: 'created', gateway_link_id: expect.any(String) });
    expect(fresh.body.id).not.toBe(row.id);
  });

  it('a payment link paid end to end: webhook → one settled intent, signed receipt, intent.settled, quote paid', async () => {
    const { quoteId, link } = await linkFor(15_000);
    await paidOnLink(link.gateway_link_id);

    const got = await getLink(quoteId);
    expect(got.body).toMatchObject({
      id: link.id,
      status: 'paid',
      payment_reference: expect.stringMatching(/^pay_/) as string,
      receipt_id: expect.stringMatching(/^rcp_/) as string,
    });
    const intentId = got.body.intent_id as string;
    expect(
      await one(
        `SELECT status, amount_paise::int AS amount, mandate_id, source_kind, source_id, rail, rail_reference
           FROM payment_intents WHERE id = $1`,
        [intentId],
      ),
    ).toEqual({
      status: 'settled',
      amount: 15_000,
      mandate_id: null,
      source_kind: 'hosted',
      source_id: link.id,
      rail: 'gateway',
      rail_reference: got.body.payment_reference,
    });
    expect(await count('payment_intents WHERE source_id = $1', [link.id])).toBe(1);
    expect(
      await count(`outbox_events WHERE subject_id = $1 AND type = 'intent.settled'`, [intentId]),
    ).toBe(1);
    const quote = await getQuote(quoteId);
    expect(quote.body).toMatchObject({ status: 'paid', intent_id: intentId });
    expect(await app.gw.client.getPaymentLink(link.gateway_link_id)).toMatchObject({
      status: 'paid',
      amount_paid: 15_000,
    });

    // The receipt verifies offline against the JWKS and says who authorised it.
    const receipt = await request(app.t.url)
      .get(`/v1/pay/receipts/${got.body.receipt_id as string}`)
      .set(bearer(ws.seller.credential));
    expect(receipt.status).toBe(200);
    const jwks = (await request(app.t.url).get('/.well-known/jwks.json')).body as JSONWebKeySet;
    const entries = receipt.body.entries as { payload: Record<string, unknown> }[];
    expect(await verifyChain(entries as never, jwks)).toMatchObject({ valid: true, length: 1 });
    expect(entries[0].payload).toMatchObject({
      intent_id: intentId,
      amount_paise: 15_000,
      mandate_id: null,
      source: { kind: 'hosted', id: link.id },
      quote_id: quoteId,
      authorised_by: 'person_on_page',
      payment_link_id: link.gateway_link_id,
      gateway_order_id: link.gateway_order_id,
    });

    // The link's events: the capture applied it; the rest changed nothing.
    const events = await app.t.db.query<{ type: string; outcome: string }[]>(
      `SELECT type, outcome FROM gateway_events WHERE order_id = $1 ORDER BY received_at`,
      [link.gateway_order_id],
    );
    expect(events.filter((e) => e.outcome === 'applied')).toHaveLength(1);
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['payment.captured', 'order.paid', 'payment_link.paid']),
    );
    // Paid never moves: another call answers the quote is paid, and writes nothing.
    const again = await createLink(quoteId);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('quote_already_paid');
    expect(await count(`hosted_checkouts WHERE quote_id = $1`, [quoteId])).toBe(1);
  });

  it('duplicated and reversed webhooks apply once', async () => {
    const { quoteId, link } = await linkFor(16_000);
    app.gw.sim.control.webhooks({ duplicate: 3, reverse_order: true });
    await paidOnLink(link.gateway_link_id);
    const log = app.gw.sim.control.webhookLog();
    expect(log.filter((e) => e.kind === 'duplicate').length).toBeGreaterThanOrEqual(12);
    expect(await count('payment_intents WHERE source_id = $1', [link.id])).toBe(1);
    const { id: intentId } = await one<{ id: string }>(
      `SELECT id FROM payment_intents WHERE source_id = $1 AND status = 'settled'`,
      [link.id],
    );
    expect(
      await count(`outbox_events WHERE subject_id = $1 AND type = 'intent.settled'`, [intentId]),
    ).toBe(1);
    expect(await count(`chain_entries WHERE payload->>'intent_id' = $1`, [intentId])).toBe(1);
    expect(
      await count(`gateway_events WHERE order_id = $1 AND outcome = 'applied'`, [
        link.gateway_order_id,
      ]),
    ).toBe(1);
    expect((await getQuote(quoteId)).body.status).toBe('paid');
  });

  it('the gateway’s redirect back to us settles the link at once (webhooks lost); a forged one does nothing', async () => {
    const { quoteId, link } = await linkFor(22_000);
    app.gw.sim.control.webhooks({ drop: true });
    const { redirect } = await app.gw.sim.control.payLink(link.gateway_link_id);
    const back = new URL(redirect as string);
    const statusPath = `/app/pay/${quoteId}/status?checkout=${link.id}`;
    expect(`${back.origin}${back.pathname}`).toBe(`${app.t.url}/app/pay/${quoteId}/status`);

    // A forged signature (or fields of another link) is ignored: nothing settles.
    const forged = new URL(back);
    forged.searchParams.set('gateway_signature', 'ab'.repeat(32));
    const ignored = await request(app.t.url).get(`${forged.pathname}${forged.search}`);
    expect(ignored.status).toBe(303);
    expect(ignored.headers.location).toBe(statusPath);
    expect(await count('payment_intents WHERE source_id = $1', [link.id])).toBe(0);

    const res = await request(app.t.url).get(`${back.pathname}${back.search}`);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(statusPath);
    const got = await getLink(quoteId);
    expect(got.body).toMatchObject({
      status: 'paid',
      payment_reference: back.searchParams.get('gateway_payment_id'),
    });
    expect((await getQuote(quoteId)).body.status).toBe('paid');
    const page = await request(app.t.url).get(statusPath);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Payment received');
    // The same redirect again changes nothing.
    await request(app.t.url).get(`${back.pathname}${back.search}`).expect(303);
    expect(await count('payment_intents WHERE source_id = $1', [link.id])).toBe(1);
  });

  describe('refusals write nothing', () => {
    async function expectNothingWritten(quoteId: string, linksBefore: number) {
      expect(await count(`hosted_checkouts WHERE quote_id = $1`, [quoteId])).toBe(0);
      expect(await count(`audit_events WHERE action = 'payment_link.created'`)).toBe(auditBefore);
      expect(simLinks()).toHaveLength(linksBefore);
    }
    let auditBefore = 0;
    beforeEach(async () => {
      auditBefore = await count(`audit_events WHERE action = 'payment_link.created'`);
    });

    it('a body with any field (an amount, an expiry) is 400', async () => {
      const quoteId = await createQuote(app.t, ws, 17_500);
      const before = simLinks().length;
      for (const body of [{ amount_paise: 1 }, { expire_by: 1 }]) {
        const res = await request(app.t.url)
          .post(`/v1/pay/quotes/${quoteId}/payment-link`)
          .set(bearer(ws.seller.credential))
          .send(body);
        expect(res.status).toBe(400);
      }
      await expectNothingWritten(quoteId, before);
    });

    it('another seller, and the buyer, get 404', async () => {
      const quoteId = await createQuote(app.t, ws, 17_000);
      const other = await seedWorkspace(app.t);
      const before = simLinks().length;
      for (const credential of [other.seller.credential, ws.buyer.credential]) {
        const res = await createLink(quoteId, credential);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('quote_not_found');
        expect((await getLink(quoteId, credential)).status).toBe(404);
      }
      await expectNothingWritten(quoteId, before);
      const none = await getLink(quoteId);
      expect(none.status).toBe(404);
      expect(none.body.error.code).toBe('payment_link_not_found');
    });

    it('an expired quote (at exactly its expires_at): 409 quote_expired', async () => {
      const quoteId = await createQuote(app.t, ws, 18_000);
      const quote = (await getQuote(quoteId)).body as { expires_at: string };
      const before = simLinks().length;
      app.t.clock.advance(Date.parse(quote.expires_at) - app.t.clock.now().getTime());
      const res = await createLink(quoteId);
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('quote_expired');
      await expectNothingWritten(quoteId, before);
    });

    it('a quote paid by its buyer agent, and a canceled one: 409', async () => {
      const before = simLinks().length;
      const paidId = await createQuote(app.t, ws, 19_000);
      const mandateId = await createMandate(app.t, {
        workspaceId: ws.workspaceId,
        agentId: ws.buyer.id,
      });
      const pay = await request(app.t.url)
        .post(`/v1/pay/quotes/${paidId}/pay`)
        .set(bearer(ws.buyer.credential))
        .send({ mandate_id: mandateId });
      expect(pay.body.intent.status).toBe('settled');
      const paid = await createLink(paidId);
      expect(paid.status).toBe(409);
      expect(paid.body.error.code).toBe('quote_already_paid');
      await expectNothingWritten(paidId, before);

      const canceledId = await createQuote(app.t, ws, 19_500);
      await request(app.t.url)
        .post(`/v1/pay/quotes/${canceledId}/cancel`)
        .set(bearer(ws.seller.credential))
        .expect(200);
      const canceled = await createLink(canceledId);
      expect(canceled.status).toBe(409);
      expect(canceled.body.error.code).toBe('quote_canceled');
      await expectNothingWritten(canceledId, before);
    });
  });

  it('canceling the quote cancels its link at the gateway; the link reads expired', async () => {
    const { quoteId, link } = await linkFor(20_000);
    await request(app.t.url)
      .post(`/v1/pay/quotes/${quoteId}/cancel`)
      .set(bearer(ws.seller.credential))
      .expect(200);
    await waitFor(
      'the gateway link to be cancelled',
      async () => (await app.gw.client.getPaymentLink(link.gateway_link_id)).status === 'cancelled',
    );
    const got = await getLink(quoteId);
    expect(got.body).toMatchObject({
      status: 'expired',
      failure_code: 'quote_canceled',
      intent_id: null,
    });
  });

  it('a quote its buyer agent pays while its link is open: the link is cancelled at the gateway', async () => {
    const { quoteId, link } = await linkFor(21_000);
    const mandateId = await createMandate(app.t, {
      workspaceId: ws.workspaceId,
      agentId: ws.buyer.id,
    });
    const pay = await request(app.t.url)
      .post(`/v1/pay/quotes/${quoteId}/pay`)
      .set(bearer(ws.buyer.credential))
      .send({ mandate_id: mandateId });
    expect(pay.body.intent.status).toBe('settled');
    await waitFor(
      'the open link to be cancelled',
      async () => (await app.gw.client.getPaymentLink(link.gateway_link_id)).status === 'cancelled',
    );
  });

  it('a link paid after the quote was paid on the hosted page does not settle twice: its capture is refunded in full', async () => {
    const { quoteId, link } = await linkFor(21_000);
    // Paying the quote cancels its open link at the gateway; here that cancel loses the race (the
    // link is being paid at that moment), so the link's payment still arrives.
    const client = app.t.get<GatewayClient>(GATEWAY_CLIENT as never);
    const cancel = jest
      .spyOn(client, 'cancelPaymentLink')
      .mockRejectedValueOnce(new Error('the link is being paid'));
    // The person pays on the hosted page first (widget + complete).
    const started = await request(app.t.url)
      .post(`/v1/public/pay/quotes/${quoteId}/checkout`)
      .send();
    expect(started.status).toBe(200);
    const fields = await app.gw.sim.control.pay(started.body.order_id as string);
    const done = await request(app.t.url)
      .post(`/v1/public/pay/quotes/${quoteId}/checkout/${started.body.id as string}/complete`)
      .send({ ...fields });
    expect(done.body.status).toBe('paid');
    await waitFor('the link cancel to be tried', () => cancel.mock.calls.length === 1);
    cancel.mockRestore();
    await app.gw.sim.control.webhooksIdle();
    // Then someone pays the link too.
    await paidOnLink(link.gateway_link_id);
    expect(
      await count(`payment_intents WHERE source_id IN ($1, $2)`, [link.id, started.body.id]),
    ).toBe(1);
    expect(
      await one(
        `SELECT outcome, subject_id FROM gateway_events
          WHERE order_id = $1 AND type = 'payment.captured'`,
        [link.gateway_order_id],
      ),
    ).toEqual({ outcome: 'refund_due', subject_id: link.id });
    const held = await app.t
      .get(CaptureRefunds)
      .findByPayment(
        (
          await one<{ payment_id: string }>(
            `SELECT payment_id FROM gateway_events WHERE order_id = $1 AND type = 'payment.captured'`,
            [link.gateway_order_id],
          )
        ).payment_id,
      );
    expect(held).toMatchObject({ reason_code: 'quote_already_paid', checkout_id: link.id });
    await waitFor(
      'the link’s capture to be refunded',
      async () =>
        (await app.t.get(CaptureRefunds).findByPayment(held!.payment_id))?.status === 'refunded',
    );
    expect(await app.gw.client.getPayment(held!.payment_id)).toMatchObject({
      amount_refunded: 21_000,
      refund_status: 'full',
    });
    expect(await one('SELECT status FROM hosted_checkouts WHERE id = $1', [link.id])).toEqual({
      status: 'created',
    });
    expect((await getLink(quoteId)).body).toMatchObject({
      status: 'expired',
      failure_code: 'quote_already_paid',
    });
    expect((await getQuote(quoteId)).body).toMatchObject({
      status: 'paid',
      intent_id: done.body.intent_id,
    });
  });

  describe("the buyer's daily cap (₹50,000) still applies", () => {
    it('refuses a link the cap would refuse (boundary), and refunds a capture over it', async () => {
      const w = await seedWorkspace(app.t);
      // A link for ₹30,000, not paid yet.
      const { quoteId: aId, link: a } = await linkFor(3_000_000, w);
      // ₹30,000 paid on the hosted page: ₹20,000 of the day's cap is left.
      const bId = await createQuote(app.t, w, 3_000_000);
      const started = await request(app.t.url).post(`/v1/public/pay/quotes/${bId}/checkout`).send();
      const fields = await app.gw.sim.control.pay(started.body.order_id as string);
      const paidB = await request(app.t.url)
        .post(`/v1/public/pay/quotes/${bId}/checkout/${started.body.id as string}/complete`)
        .send({ ...fields });
      expect(paidB.body.status).toBe('paid');
      await app.gw.sim.control.webhooksIdle();

      // ₹20,000.01 is refused, ₹20,000 exactly is not.
      const over = await createQuote(app.t, w, 2_000_001);
      const refused = await createLink(over, w.seller.credential);
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('payment_refused');
      expect(await count(`hosted_checkouts WHERE quote_id = $1`, [over])).toBe(0);
      const exact = await createQuote(app.t, w, 2_000_000);
      expect((await createLink(exact, w.seller.credential)).status).toBe(200);

      // The ₹30,000 link is paid now: the pipeline refuses it; nothing settles.
      await paidOnLink(a.gateway_link_id);
      expect(
        await one(
          `SELECT outcome FROM gateway_events WHERE order_id = $1 AND type = 'payment.captured'`,
          [a.gateway_order_id],
        ),
      ).toEqual({ outcome: 'refund_due' });
      expect(
        await count(`payment_intents WHERE source_id = $1 AND status = 'settled'`, [a.id]),
      ).toBe(0);
      expect(
        await count(
          `gateway_capture_refunds WHERE checkout_id = $1 AND reason_code = 'daily_cap_exceeded'`,
          [a.id],
        ),
      ).toBe(1);
      expect((await getLink(aId, w.seller.credential)).body).toMatchObject({
        status: 'failed',
        failure_code: 'daily_cap_exceeded',
      });
      expect((await getQuote(aId, w.seller.credential)).body.status).toBe('open');
    });
  });

  function getQuote(quoteId: string, credential = ws.seller.credential) {
    return request(app.t.url).get(`/v1/pay/quotes/${quoteId}`).set(bearer(credential));
  }
});

describe('payment links on the sandbox rail', () => {
  let t: TestApp;
  let ws: SeededWorkspace;

  beforeAll(async () => {
    t = await startApp();
    ws = await seedWorkspace(t);
  });
  afterAll(() => t?.close());

  it('answers 409 payment_links_need_gateway and writes nothing (the pay_url is the way)', async () => {
    const quote = await request(t.url)
      .post('/v1/pay/quotes')
      .set(bearer(ws.seller.credential))
      .send({
        buyer_agent_id: ws.buyer.id,
        category: 'services.test',
        items: [{ name: 'Sandbox item', unit_paise: 10_000 }],
      });
    expect(quote.status).toBe(201);
    const res = await request(t.url)
      .post(`/v1/pay/quotes/${quote.body.id as string}/payment-link`)
      .set(bearer(ws.seller.credential))
      .send();
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('payment_links_need_gateway');
    const rows = await t.db.query<{ n: number }[]>(
      'SELECT count(*)::int AS n FROM hosted_checkouts WHERE quote_id = $1',
      [quote.body.id],
    );
    expect(rows[0].n).toBe(0);
    const got = await request(t.url)
      .get(`/v1/pay/quotes/${quote.body.id as string}/payment-link`)
      .set(bearer(ws.seller.credential));
    expect(got.status).toBe(404);
    expect(got.body.error.code).toBe('payment_link_not_found');
    // Another seller still gets 404 first, telling nothing about the quote.
    const other = await seedWorkspace(t);
    const foreign = await request(t.url)
      .post(`/v1/pay/quotes/${quote.body.id as string}/payment-link`)
      .set(bearer(other.seller.credential))
      .send();
    expect(foreign.status).toBe(404);
  });
});

/**
 * A gateway that does not answer: the seller gets 503 gateway_unavailable with Retry-After, the
 * quote stays open, and the same call once the gateway is back finishes the one link (the
 * gateway's link carries our row's id as reference, so nothing is made twice).
 */
describe('payment links when the gateway does not answer', () => {
  let gw: TestGateway;
  let front: Server;
  let down = true;
  let t: TestApp;
  let ws: SeededWorkspace;

  beforeAll(async () => {
    gw = await startTestGateway();
    const sim = new URL(gw.sim.url);
    // In front of the simulator: drops every connection while `down`, passes through otherwise.
    front = createServer((req, res) => {
      if (down) {
        req.socket.destroy();
        return;
      }
      const upstream = httpRequest(
        {
          host: sim.hostname,
          port: sim.port,
          path: req.url,
          method: req.method,
          headers: req.headers,
        },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
    t = await startApp({
      mode: 'test',
      rail: 'gateway',
      gateway: gatewayConfig(url, 1000),
      railReconcileAfterMs: 60_000,
    });
    ws = await seedWorkspace(t);
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((resolve) => front?.close(resolve));
    await gw?.close();
  });

  it('is 503 with Retry-After and no link; the retry once it is back makes exactly one', async () => {
    const quoteId = await createQuote(t, ws, 23_456);
    const failed = await request(t.url)
      .post(`/v1/pay/quotes/${quoteId}/payment-link`)
      .set(bearer(ws.seller.credential))
      .set('Idempotency-Key', 'link-outage-1')
      .send();
    expect(failed.status).toBe(503);
    expect(failed.headers['retry-after']).toBe('3');
    expect(failed.body.error.code).toBe('gateway_unavailable');
    expect(gw.sim.control.state().payment_links).toHaveLength(0);
    const rows = await t.db.query<{ gateway_link_id: string | null; status: string }[]>(
      'SELECT gateway_link_id, status FROM hosted_checkouts WHERE quote_id = $1',
      [quoteId],
    );
    expect(rows.every((r) => r.gateway_link_id === null)).toBe(true);
    const quote = await request(t.url)
      .get(`/v1/pay/quotes/${quoteId}`)
      .set(bearer(ws.seller.credential));
    expect(quote.body.status).toBe('open');

    down = false;
    const retried = await request(t.url)
      .post(`/v1/pay/quotes/${quoteId}/payment-link`)
      .set(bearer(ws.seller.credential))
      .set('Idempotency-Key', 'link-outage-1')
      .send();
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ status: 'created', amount_paise: 23_456 });
    const links = gw.sim.control.state().payment_links;
    expect(links).toHaveLength(1);
    expect(links[0]).toMatchObject({ amount: 23_456, reference_id: retried.body.id });
  });
});
