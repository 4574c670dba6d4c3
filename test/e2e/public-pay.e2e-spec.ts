import { randomUUID } from 'node:crypto';
import http, { IncomingHttpHeaders } from 'node:http';
import { AddressInfo } from 'node:net';

import { compactVerify, createLocalJWKSet, JSONWebKeySet } from 'jose';
import { Webhook } from 'standardwebhooks';
import request from 'supertest';

import { verifyChain } from '../../src/chains/verify-chain';
import { UNGUESSABLE_ID_BITS, unguessableId } from '../../src/quotes/unguessable-id';
import { bearer } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { startApp, TestApp } from '../support/app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * The hosted payment page and the public pay API over HTTP, on real Postgres and Redis: every
 * public route, every reason a quote is not payable, the checkout state machine, one payment for
 * many concurrent completes, closed bodies, 404s that reveal nothing, the settled webhook
 * (standardwebhooks) and the receipt (jose + JWKS), and the server-rendered pages.
 */

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

async function startReceiver(): Promise<{ url: string; got: Received[]; close(): Promise<void> }> {
  const got: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    got,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function waitFor<T>(
  what: string,
  fn: () => T | undefined | null | false,
  timeoutMs = 8000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v) {
      return v;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

const PUBLIC = '/v1/public/pay/quotes';
const SAME_ORIGIN = { 'Sec-Fetch-Site': 'same-origin' };

describe('PublicPayService (HTTP)', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let other: SeededWorkspace;
  let mandateId: string;

  beforeAll(async () => {
    t = await startApp({ webhookDispatchIntervalMs: 50, webhookRetryScheduleMs: [50, 100, 150] });
    ws = await seedWorkspace(t);
    other = await seedWorkspace(t);
    mandateId = await createMandate(t, { workspaceId: ws.workspaceId, agentId: ws.buyer.id });
  });
  afterAll(() => t.close());
  afterEach(() => t.clock.reset());

  async function count(sql: string, params: unknown[]): Promise<number> {
    const [{ n }] = await t.db.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM ${sql}`,
      params,
    );
    return n;
  }

  /** The seller quotes `amountPaise` (one line, or `items`) to the buyer; returns the quote body. */
  async function quote(
    amountPaise = 350_000,
    extra: Record<string, unknown> = {},
    seller = ws,
    buyerId = ws.buyer.id,
  ): Promise<{ id: string; pay_url: string; amount_paise: number; expires_at: string }> {
    const res = await request(t.url)
      .post('/v1/pay/quotes')
      .set(bearer(seller.seller.credential))
      .send({
        buyer_agent_id: buyerId,
        category: 'food.hampers',
        items: [{ name: 'Tea hamper', unit_paise: amountPaise }],
        ...extra,
      });
    expect(res.status).toBe(201);
    return res.body as never;
  }

  const view = (quoteId: string) => request(t.url).get(`${PUBLIC}/${quoteId}`);
  const start = (quoteId: string, headers: Record<string, string> = {}, body?: unknown) => {
    const req = request(t.url).post(`${PUBLIC}/${quoteId}/checkout`).set(headers);
    return body === undefined ? req : req.send(body as object);
  };
  const complete = (quoteId: string, checkoutId: string, body: unknown = { outcome: 'success' }) =>
    request(t.url)
      .post(`${PUBLIC}/${quoteId}/checkout/${checkoutId}/complete`)
      .send(body as object);
  const getCheckout = (quoteId: string, checkoutId: string) =>
    request(t.url).get(`${PUBLIC}/${quoteId}/checkout/${checkoutId}`);

  /** Starts a checkout and completes it with `outcome`; returns the complete response. */
  async function payOnPage(quoteId: string, outcome: 'success' | 'failure' = 'success') {
    const started = await start(quoteId);
    expect(started.status).toBe(200);
    return complete(quoteId, started.body.id as string, { outcome });
  }

  describe('links and ids', () => {
    it('gives every quote response a pay_url under the app', async () => {
      const q = await quote();
      expect(q.pay_url).toBe(`${t.config.appUrl}/pay/${q.id}`);
      const got = await request(t.url)
        .get(`/v1/pay/quotes/${q.id}`)
        .set(bearer(ws.buyer.credential));
      expect(got.body.pay_url).toBe(q.pay_url);
      const paid = await request(t.url)
        .post(`/v1/pay/quotes/${(await quote(45_000)).id}/pay`)
        .set(bearer(ws.buyer.credential))
        .send({ mandate_id: mandateId });
      expect(paid.body.quote.pay_url).toMatch(/\/app\/pay\/qt_/);
    });

    it('makes quote ids of at least 128 random bits', async () => {
      expect(UNGUESSABLE_ID_BITS).toBeGreaterThanOrEqual(128);
      const ids = await Promise.all([quote(), quote(), quote()]);
      for (const q of ids) {
        expect(q.id).toMatch(/^qt_[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{24}$/);
      }
      expect(new Set(ids.map((q) => q.id)).size).toBe(3);
    });
  });

  describe('GET /v1/public/pay/quotes/{id}', () => {
    it('shows the quote, seller, buyer, rail and mode, and no secret, workspace or mandate', async () => {
      const q = await quote(350_000);
      const res = await view(q.id);
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toMatchObject({
        quote: {
          id: q.id,
          status: 'open',
          seller_name: 'Chai Co',
          buyer_name: 'Buyer assistant',
          buyer_agent_id: ws.buyer.id,
          currency: 'INR',
          amount_paise: 350_000,
          line_items: [
            { name: 'Tea hamper', quantity: 1, unit_paise: 350_000, amount_paise: 350_000 },
          ],
          pay_url: q.pay_url,
        },
        rail: 'sandbox',
        mode: 'test',
        payable: true,
        reason: null,
        checkout: null,
      });
      const text = JSON.stringify(res.body);
      for (const secret of [
        ws.workspaceId,
        ws.seller.credential,
        ws.buyer.credential,
        ws.apiKey,
        mandateId,
        'workspace',
      ]) {
        expect(text).not.toContain(secret);
      }
    });

    it('answers an unknown and a malformed id with the same 404 body, in about the same time', async () => {
      const unknown = await view(unguessableId('qt'));
      const malformed = await view('not-a-quote');
      const short = await view('qt_1');
      expect(unknown.status).toBe(404);
      const strip = (b: { error: Record<string, unknown> }) => ({
        ...b.error,
        request_id: undefined,
      });
      expect(strip(malformed.body)).toEqual(strip(unknown.body));
      expect(strip(short.body)).toEqual(strip(unknown.body));
      expect(unknown.body.error).toMatchObject({
        code: 'quote_not_found',
        message: 'No quote with this id',
      });

      const time = async (id: string) => {
        const t0 = process.hrtime.bigint();
        await view(id);
        return Number(process.hrtime.bigint() - t0) / 1e6;
      };
      const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
      const a: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < 15; i++) {
        a.push(await time(unguessableId('qt')));
        b.push(await time(`bad-${i}`));
      }
      // Both take one primary-key lookup; neither is cut short. Loose bound: this is not a benchmark.
      expect(Math.abs(median(a) - median(b))).toBeLessThan(Math.max(5, median(a)));
    });

    it('says why a quote cannot be paid: expired', async () => {
      const q = await quote(10_000, { expires_in_seconds: 60 });
      t.clock.advance(61_000);
      const res = await view(q.id);
      expect(res.body).toMatchObject({
        payable: false,
        reason: expect.stringContaining('expired'),
      });
      const refused = await start(q.id);
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({ code: 'quote_expired', message: res.body.reason });
      expect(await count('hosted_checkouts WHERE quote_id = $1', [q.id])).toBe(0);
    });

    it('says why a quote cannot be paid: canceled', async () => {
      const q = await quote(10_000);
      await request(t.url)
        .post(`/v1/pay/quotes/${q.id}/cancel`)
        .set(bearer(ws.seller.credential))
        .expect(200);
      expect((await view(q.id)).body).toMatchObject({
        payable: false,
        reason: 'The seller canceled this quote.',
      });
      expect((await start(q.id)).body.error.code).toBe('quote_canceled');
    });

    it('says why a quote cannot be paid: already paid (by its agent or on the page)', async () => {
      const q = await quote(10_000);
      await request(t.url)
        .post(`/v1/pay/quotes/${q.id}/pay`)
        .set(bearer(ws.buyer.credential))
        .send({ mandate_id: mandateId })
        .expect(200);
      expect((await view(q.id)).body).toMatchObject({
        payable: false,
        reason: 'This quote has already been paid.',
      });
      expect((await start(q.id)).body.error.code).toBe('quote_already_paid');

      const q2 = await quote(10_000);
      expect((await payOnPage(q2.id)).body.status).toBe('paid');
      expect((await view(q2.id)).body).toMatchObject({
        payable: false,
        reason: 'This quote has already been paid.',
        checkout: { status: 'paid' },
      });
    });

    it('says why a quote cannot be paid: a payment waits for a decision', async () => {
      const q = await quote(350_000);
      const paid = await request(t.url)
        .post(`/v1/pay/quotes/${q.id}/pay`)
        .set(bearer(ws.buyer.credential))
        .send({ mandate_id: mandateId });
      expect(paid.body.intent.status).toBe('requires_approval');
      expect((await view(q.id)).body).toMatchObject({
        payable: false,
        reason: expect.stringContaining('waiting for a person'),
      });
      expect((await start(q.id)).body.error.code).toBe('quote_pending_approval');
    });

    it("says why a quote cannot be paid: the buyer agent's daily cap", async () => {
      const q = await quote(t.config.dailyCapPaise + 100);
      const res = await view(q.id);
      expect(res.body).toMatchObject({
        payable: false,
        reason: expect.stringContaining('daily spending limit of ₹50,000.00'),
      });
      const refused = await start(q.id);
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({
        code: 'payment_refused',
        message: res.body.reason,
      });
    });
  });

  describe('hosted checkout', () => {
    it('starts once: starting again returns the live checkout, with and without Idempotency-Key', async () => {
      const q = await quote();
      const first = await start(q.id);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({
        id: expect.stringMatching(/^hco_/),
        object: 'hosted_checkout',
        quote_id: q.id,
        status: 'created',
        amount_paise: 350_000,
        currency: 'INR',
        rail: 'sandbox',
        attempts: 0,
        intent_id: null,
        status_url: `${t.config.appUrl}/pay/${q.id}/status?checkout=${first.body.id as string}`,
      });
      expect((await start(q.id)).body.id).toBe(first.body.id);
      const key = { 'Idempotency-Key': randomUUID() };
      const keyed = await start(q.id, key);
      const replay = await start(q.id, key);
      expect(keyed.body.id).toBe(first.body.id);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual(keyed.body);
      expect(await count('hosted_checkouts WHERE quote_id = $1', [q.id])).toBe(1);
      expect((await view(q.id)).body.checkout).toMatchObject({
        id: first.body.id,
        status: 'created',
      });
      const got = await getCheckout(q.id, first.body.id as string);
      expect(got.body).toEqual(first.body);
    });

    it('pays above ₹2,000 without a mandate or an approval: intent, receipt, quote paid, webhook to the seller', async () => {
      const receiver = await startReceiver();
      try {
        const endpoint = await request(t.url)
          .post('/v1/webhooks/endpoints')
          .set({ Authorization: `Bearer ${ws.apiKey}` })
          .send({ url: receiver.url, event_types: ['intent.settled'], agent_id: ws.seller.id });
        expect(endpoint.status).toBe(201);
        const q = await quote(350_000);
        const res = await payOnPage(q.id);
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({
          status: 'paid',
          attempts: 1,
          intent_id: expect.stringMatching(/^pi_/),
          payment_reference: expect.stringMatching(/^SBX/),
          receipt_id: expect.stringMatching(/^rcp_/),
          failure_code: null,
        });
        const intentId = res.body.intent_id as string;
        const [intent] = await t.db.query<Record<string, string | null>[]>(
          'SELECT status, source_kind, source_id, mandate_id, token_id, amount_paise::text, buyer_agent_id, seller_agent_id FROM payment_intents WHERE id = $1',
          [intentId],
        );
        expect(intent).toEqual({
          status: 'settled',
          source_kind: 'hosted',
          source_id: res.body.id,
          mandate_id: null,
          token_id: null,
          amount_paise: '350000',
          buyer_agent_id: ws.buyer.id,
          seller_agent_id: ws.seller.id,
        });
        expect(await count(`approvals WHERE subject_id = $1`, [intentId])).toBe(0);
        const sellerView = await request(t.url)
          .get(`/v1/pay/quotes/${q.id}`)
          .set(bearer(ws.seller.credential));
        expect(sellerView.body).toMatchObject({
          status: 'paid',
          intent_id: intentId,
          paid_at: expect.any(String),
        });

        // The receipt, verified offline: hash chain and EdDSA signatures against the JWKS.
        const receipt = await request(t.url)
          .get(`/v1/pay/receipts/${res.body.receipt_id as string}`)
          .set(bearer(ws.seller.credential));
        expect(receipt.status).toBe(200);
        const jwks = (await request(t.url).get('/.well-known/jwks.json')).body as JSONWebKeySet;
        const entries = receipt.body.entries as {
          jws: string;
          hash: string;
          payload: Record<string, unknown>;
        }[];
        expect(await verifyChain(entries as never, jwks)).toMatchObject({ valid: true, length: 1 });
        const verified = await compactVerify(entries[0].jws, createLocalJWKSet(jwks), {
          algorithms: ['EdDSA'],
        });
        expect(new TextDecoder().decode(verified.payload)).toBe(entries[0].hash);
        expect(entries[0].payload).toMatchObject({
          intent_id: intentId,
          amount_paise: 350_000,
          mandate_id: null,
          source: { kind: 'hosted', id: res.body.id },
          quote_id: q.id,
          hosted_checkout_id: res.body.id,
          authorised_by: 'person_on_page',
        });

        // intent.settled reaches the seller, signed (Standard Webhooks).
        const got = await waitFor('the intent.settled webhook', () =>
          receiver.got.find(
            (r) =>
              (JSON.parse(r.body) as { data: { intent_id: string } }).data.intent_id === intentId,
          ),
        );
        const event = new Webhook(endpoint.body.secret as string).verify(
          got.body,
          got.headers as Record<string, string>,
        ) as {
          type: string;
          data: Record<string, unknown>;
        };
        expect(event).toMatchObject({
          type: 'intent.settled',
          data: {
            intent_id: intentId,
            amount_paise: 350_000,
            seller_agent_id: ws.seller.id,
            source: { kind: 'hosted', id: res.body.id },
          },
        });
      } finally {
        await receiver.close();
      }
    });

    it('makes one payment from twenty concurrent complete success calls', async () => {
      const q = await quote(120_000);
      const hco = (await start(q.id)).body.id as string;
      const results = await Promise.all(Array.from({ length: 20 }, () => complete(q.id, hco)));
      for (const r of results) {
        expect(r.status).toBe(200);
        expect(r.body).toMatchObject({ id: hco, status: 'paid' });
      }
      expect(new Set(results.map((r) => r.body.intent_id as string)).size).toBe(1);
      const intentId = results[0].body.intent_id as string;
      expect(
        await count(`payment_intents WHERE source_kind = 'hosted' AND source_id = $1`, [hco]),
      ).toBe(1);
      expect(
        await count(`rail_transfers WHERE intent_id = $1 AND direction = 'debit'`, [intentId]),
      ).toBe(1);
      expect(await count(`chains WHERE id = $1`, [results[0].body.receipt_id])).toBe(1);
      expect(
        await count(`outbox_events WHERE subject_id = $1 AND type = 'intent.settled'`, [intentId]),
      ).toBe(1);
      const [row] = await t.db.query<{ attempts: number; status: string }[]>(
        'SELECT attempts, status FROM hosted_checkouts WHERE id = $1',
        [hco],
      );
      expect(row).toEqual({ attempts: 1, status: 'paid' });
    });

    it('never moves a paid checkout again', async () => {
      const q = await quote(10_000);
      const paid = await payOnPage(q.id);
      const failure = await complete(q.id, paid.body.id as string, { outcome: 'failure' });
      expect(failure.status).toBe(409);
      expect(failure.body.error.code).toBe('checkout_already_paid');
      expect((await getCheckout(q.id, paid.body.id as string)).body).toMatchObject({
        status: 'paid',
        intent_id: paid.body.intent_id,
      });
    });

    it('records a failed attempt, then lets the person start again and pay', async () => {
      const q = await quote(10_000);
      const failed = await payOnPage(q.id, 'failure');
      expect(failed.status).toBe(200);
      expect(failed.body).toMatchObject({
        status: 'failed',
        attempts: 1,
        intent_id: null,
        failure_code: 'payment_failed',
        failure_reason: expect.stringContaining('No money moved'),
      });
      expect(await count('payment_intents WHERE source_id = $1', [failed.body.id])).toBe(0);
      expect((await complete(q.id, failed.body.id as string)).body.error.code).toBe(
        'checkout_failed',
      );
      expect((await view(q.id)).body).toMatchObject({
        payable: true,
        checkout: { id: failed.body.id, status: 'failed' },
      });
      const retry = await payOnPage(q.id);
      expect(retry.body.id).not.toBe(failed.body.id);
      expect(retry.body.status).toBe('paid');
      expect(await count('hosted_checkouts WHERE quote_id = $1', [q.id])).toBe(2);
    });

    it('fails in words when the rail refuses (sandbox amount ending in 51)', async () => {
      const q = await quote(1051);
      const res = await payOnPage(q.id);
      expect(res.body).toMatchObject({
        status: 'failed',
        failure_code: 'insufficient_funds',
        failure_reason:
          'The payment did not go through: the payer bank reported insufficient funds. No money moved; you can try again.',
        intent_id: expect.stringMatching(/^pi_/),
      });
      const [intent] = await t.db.query<{ status: string }[]>(
        'SELECT status FROM payment_intents WHERE id = $1',
        [res.body.intent_id],
      );
      expect(intent.status).toBe('failed');
      expect((await view(q.id)).body.payable).toBe(true);
    });

    it('expires a created checkout after 30 minutes; starting again makes a new one', async () => {
      const q = await quote(10_000, { expires_in_seconds: 3 * 3600 });
      const first = (await start(q.id)).body;
      expect(Date.parse(first.expires_at as string) - Date.parse(first.created_at as string)).toBe(
        30 * 60_000,
      );
      t.clock.advance(31 * 60_000);
      expect((await getCheckout(q.id, first.id as string)).body).toMatchObject({
        status: 'expired',
        failure_code: 'checkout_expired',
      });
      const late = await complete(q.id, first.id as string);
      expect(late.status).toBe(409);
      expect(late.body.error.code).toBe('checkout_expired');
      const [row] = await t.db.query<{ status: string }[]>(
        'SELECT status FROM hosted_checkouts WHERE id = $1',
        [first.id],
      );
      expect(row.status).toBe('expired');
      const again = await start(q.id);
      expect(again.body).toMatchObject({ status: 'created' });
      expect(again.body.id).not.toBe(first.id);
    });

    it('expires a live checkout when the seller cancels the quote', async () => {
      const q = await quote(10_000);
      const hco = (await start(q.id)).body.id as string;
      await request(t.url)
        .post(`/v1/pay/quotes/${q.id}/cancel`)
        .set(bearer(ws.seller.credential))
        .expect(200);
      expect((await getCheckout(q.id, hco)).body.status).toBe('expired');
      const res = await complete(q.id, hco);
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({
        code: 'checkout_expired',
        message: 'The seller canceled this quote.',
      });
    });

    it('refuses a refused payment on complete in words when the daily cap is reached meanwhile', async () => {
      // The daily cap counts what the buyer agent committed today; this buyer's workspace is fresh.
      const fresh = await seedWorkspace(t);
      const q = await quote(t.config.dailyCapPaise - 1000, {}, fresh, fresh.buyer.id);
      const hco = (await start(q.id)).body.id as string;
      const small = await quote(2000, {}, fresh, fresh.buyer.id);
      expect((await payOnPage(small.id)).body.status).toBe('paid');
      const res = await complete(q.id, hco);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        status: 'failed',
        failure_code: 'daily_cap_exceeded',
        failure_reason: expect.stringContaining('daily spending limit'),
      });
      const [intent] = await t.db.query<{ status: string; decline_code: string }[]>(
        'SELECT status, decline_code FROM payment_intents WHERE id = $1',
        [res.body.intent_id],
      );
      expect(intent).toEqual({ status: 'declined', decline_code: 'daily_cap_exceeded' });
    });
  });

  describe('closed bodies and 404s', () => {
    it('refuses any field beyond outcome on complete (400) and writes nothing', async () => {
      const q = await quote(10_000);
      const otherQuote = await quote(20_000);
      const hco = (await start(q.id)).body.id as string;
      for (const body of [
        { outcome: 'success', amount_paise: 1 },
        { outcome: 'success', quote_id: otherQuote.id },
        { outcome: 'maybe' },
        {},
      ]) {
        const res = await complete(q.id, hco, body);
        expect(res.status).toBe(400);
        expect(res.body.error.type).toBe('invalid_request');
      }
      expect(await count('payment_intents WHERE source_id = $1', [hco])).toBe(0);
      expect((await getCheckout(q.id, hco)).body).toMatchObject({ status: 'created', attempts: 0 });
    });

    it('refuses any field on start (400) and writes nothing', async () => {
      const q = await quote(10_000);
      const res = await start(q.id, {}, { amount_paise: 1 });
      expect(res.status).toBe(400);
      expect(res.body.error.param).toBe('$.amount_paise');
      expect(await count('hosted_checkouts WHERE quote_id = $1', [q.id])).toBe(0);
    });

    it('answers a checkout under the wrong quote like an unknown one (404)', async () => {
      const q = await quote(10_000);
      const theirs = await quote(10_000, {}, other, other.buyer.id);
      const hco = (await start(theirs.id)).body.id as string;
      const wrong = await getCheckout(q.id, hco);
      const unknown = await getCheckout(q.id, unguessableId('hco'));
      expect(wrong.status).toBe(404);
      expect({ ...wrong.body.error, request_id: null }).toEqual({
        ...unknown.body.error,
        request_id: null,
      });
      expect(wrong.body.error.code).toBe('checkout_not_found');
      const completed = await complete(q.id, hco);
      expect(completed.status).toBe(404);
      expect(completed.body.error.code).toBe('checkout_not_found');
      expect((await getCheckout(theirs.id, hco)).body.status).toBe('created');
      expect((await complete(unguessableId('qt'), hco)).body.error.code).toBe('quote_not_found');
      expect((await start('malformed!')).status).toBe(404);
    });
  });

  describe('pages', () => {
    const page = (path: string) => request(t.url).get(path);

    function expectPageHeaders(res: request.Response) {
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    }

    it('renders the payment page: seller, buyer, items, total, expiry in IST, TEST MODE, sandbox panel', async () => {
      const q = await quote(0, {
        items: [
          { name: 'Darjeeling, 250 g', unit_paise: 75_000, quantity: 2 },
          { name: 'Gift box', unit_paise: 200_000 },
        ],
      });
      const res = await page(`/app/pay/${q.id}`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expectPageHeaders(res);
      const html = res.text;
      expect(html).toContain('Chai Co');
      expect(html).toContain('Buyer assistant');
      expect(html).toMatch(/data-test="total"[^>]*>₹3,500\.00</);
      expect(html).toContain('Total: 3,500 rupees 00 paise');
      expect(html).toContain('Darjeeling, 250 g');
      expect(html).toContain('₹750.00');
      expect(html).toContain('₹1,500.00');
      expect(html).toContain('TEST MODE');
      expect(html).toContain('Sandbox: no money moves');
      expect(html).toMatch(/<button[^>]*>Simulate success<\/button>/);
      expect(html).toMatch(/<button[^>]*>Simulate failure<\/button>/);
      expect(html).toContain('IST');
      expect(html).toContain(`datetime="${q.expires_at}"`);
      // Nothing inline, nothing third-party.
      expect(html).not.toMatch(/<style|style=|<script(?![^>]*src="\/app\/assets\/pay\.js")/);
      expect(html).not.toMatch(/(?:src|href)="https?:/);
      const css = await page('/app/assets/pay.css');
      expect(css.status).toBe(200);
      expect(css.headers['content-type']).toMatch(/text\/css/);
      const js = await page('/app/assets/pay.js');
      expect(js.headers['content-type']).toMatch(/javascript/);
    });

    it('pays from the sandbox panel without JavaScript: POST, 303, status page with reference and intent', async () => {
      const q = await quote(350_000);
      const posted = await request(t.url)
        .post(`/app/pay/${q.id}`)
        .set(SAME_ORIGIN)
        .type('form')
        .send({ outcome: 'success' });
      expect(posted.status).toBe(303);
      expectPageHeaders(posted);
      expect(posted.headers.location).toMatch(
        new RegExp(`^/app/pay/${q.id}/status\\?checkout=hco_`),
      );
      const status = await page(posted.headers.location);
      expect(status.status).toBe(200);
      expectPageHeaders(status);
      const hco = new URL(posted.headers.location, t.url).searchParams.get('checkout') as string;
      const checkout = (await getCheckout(q.id, hco)).body;
      expect(checkout.status).toBe('paid');
      expect(status.text).toContain('Payment received');
      expect(status.text).toContain(checkout.payment_reference as string);
      expect(status.text).toContain(checkout.intent_id as string);
      expect(status.text).not.toContain('http-equiv="refresh"');
      // The page now says it is paid and offers no button.
      const after = await page(`/app/pay/${q.id}`);
      expect(after.text).toContain('This payment request has already been paid.');
      expect(after.text).not.toContain('Simulate success');
    });

    it('shows a failure with Try again, and the retry pays', async () => {
      const q = await quote(10_000);
      const failed = await request(t.url)
        .post(`/app/pay/${q.id}`)
        .set(SAME_ORIGIN)
        .type('form')
        .send({ outcome: 'failure' });
      expect(failed.status).toBe(303);
      const status = await page(failed.headers.location);
      expect(status.text).toContain('Payment not completed');
      expect(status.text).toMatch(/<a[^>]*href="\/app\/pay\/[^"]+"[^>]*>Try again<\/a>/);
      const retry = await request(t.url)
        .post(`/app/pay/${q.id}`)
        .set(SAME_ORIGIN)
        .type('form')
        .send({ outcome: 'success' });
      expect(retry.headers.location).not.toBe(failed.headers.location);
      expect((await page(retry.headers.location)).text).toContain('Payment received');
    });

    it('refreshes the status page while a checkout is live (meta refresh without JavaScript)', async () => {
      const q = await quote(10_000);
      const hco = (await start(q.id)).body.id as string;
      const res = await page(`/app/pay/${q.id}/status?checkout=${hco}`);
      expect(res.status).toBe(200);
      expect(res.text).toContain('<meta http-equiv="refresh" content="3">');
      expect(res.text).toContain(`data-poll-url="/v1/public/pay/quotes/${q.id}/checkout/${hco}"`);
    });

    it('refuses a cross-site form post (403) and writes nothing', async () => {
      const q = await quote(10_000);
      for (const headers of [
        { 'Sec-Fetch-Site': 'cross-site' },
        { 'Sec-Fetch-Site': 'same-site' },
        { Origin: 'https://evil.example' },
      ]) {
        const res = await request(t.url)
          .post(`/app/pay/${q.id}`)
          .set(headers)
          .type('form')
          .send({ outcome: 'success' });
        expect(res.status).toBe(403);
      }
      expect(await count('hosted_checkouts WHERE quote_id = $1', [q.id])).toBe(0);
      // Origin: null is what our own no-referrer page sends from browsers without fetch metadata.
      const ok = await request(t.url)
        .post(`/app/pay/${q.id}`)
        .set({ Origin: 'null' })
        .type('form')
        .send({ outcome: 'success' });
      expect(ok.status).toBe(303);
    });

    it('refuses an unknown form field (400)', async () => {
      const q = await quote(10_000);
      const res = await request(t.url)
        .post(`/app/pay/${q.id}`)
        .set(SAME_ORIGIN)
        .type('form')
        .send({ outcome: 'success', amount_paise: '1' });
      expect(res.status).toBe(400);
      expect(await count('hosted_checkouts WHERE quote_id = $1', [q.id])).toBe(0);
    });

    it('shows the reason and no pay button when the quote is not payable', async () => {
      const q = await quote(10_000, { expires_in_seconds: 60 });
      t.clock.advance(61_000);
      const res = await page(`/app/pay/${q.id}`);
      expect(res.status).toBe(200);
      expect(res.text).toContain(
        'This payment request has expired; ask the seller for a fresh one.',
      );
      expect(res.text).not.toContain('Simulate success');
    });

    it('answers an unknown link with the same 404 page as a malformed one', async () => {
      const unknownPath = `/app/pay/${unguessableId('qt')}`;
      const unknown = await page(unknownPath);
      const malformed = await page('/app/pay/nonsense');
      expect(unknown.status).toBe(404);
      expect(malformed.status).toBe(404);
      // The same page but for the language switch, which leads back to the address opened.
      const withoutOwnPath = (html: string, path: string) =>
        html.split(encodeURIComponent(path)).join('<path>');
      expect(withoutOwnPath(unknown.text, unknownPath)).toBe(
        withoutOwnPath(malformed.text, '/app/pay/nonsense'),
      );
      expectPageHeaders(unknown);
      expect((await page(`/app/pay/${unguessableId('qt')}/status?checkout=hco_x`)).status).toBe(
        404,
      );
    });
  });
});
