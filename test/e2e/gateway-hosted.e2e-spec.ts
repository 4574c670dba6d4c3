import request from 'supertest';

import { paymentSignature } from '../../src/rails/gateway/gateway-signatures';
import { TEST_GATEWAY_KEYS } from '../support/gateway';
import { createQuote, GatewayApp, startGatewayApp } from '../support/gateway-app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * The hosted payment page on the gateway rail, over the public pay API (spec §2 "Hosted
 * checkout", §4 "Planned"): the start answer carries what the widget needs and no secret; the
 * complete call takes the widget's three fields, and the server checks the payment signature
 * against the stored order (a forged one, or one for another order, is refused with nothing
 * recorded), fetches the payment from the gateway, and only then settles through the pipeline. A
 * failed attempt is retried on the same order. The return route redirects only to our own pages.
 * Webhooks are dropped here so that every settlement comes from the request under test.
 */
describe('hosted page on the gateway rail (API)', () => {
  let app: GatewayApp;
  let ws: SeededWorkspace;

  beforeAll(async () => {
    app = await startGatewayApp({ webhooks: false });
    ws = await seedWorkspace(app.t);
  });
  afterAll(() => app?.close());

  const one = async <T>(sql: string, params: unknown[]): Promise<T> =>
    (await app.t.db.query<T[]>(sql, params))[0];
  const count = async (sql: string, params: unknown[]) =>
    (await one<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params)).n;

  const base = (quoteId: string) => `/v1/public/pay/quotes/${quoteId}`;
  const start = (quoteId: string) =>
    request(app.t.url)
      .post(`${base(quoteId)}/checkout`)
      .send();
  const complete = (quoteId: string, checkoutId: string, body: Record<string, unknown>) =>
    request(app.t.url)
      .post(`${base(quoteId)}/checkout/${checkoutId}/complete`)
      .send(body);

  async function started(amountPaise: number) {
    const quoteId = await createQuote(app.t, ws, amountPaise);
    const res = await start(quoteId);
    expect(res.status).toBe(200);
    return {
      quoteId,
      checkout: res.body as Record<string, unknown> & { id: string; order_id: string },
    };
  }

  /** The widget's success: the simulator pays the order and hands back the three signed fields. */
  async function payInWidget(orderId: string) {
    return app.gw.sim.control.pay(orderId);
  }

  it('starts with what the widget needs (key_id, order_id, amount, currency, name, description, callback_url) and no secret', async () => {
    const { quoteId, checkout } = await started(21_000);
    expect(checkout).toMatchObject({
      status: 'created',
      rail: 'gateway',
      key_id: TEST_GATEWAY_KEYS.keyId,
      order_id: expect.stringMatching(/^order_/) as string,
      amount: 21_000,
      currency: 'INR',
      name: 'Chai Co',
      description: 'Gateway item',
      callback_url: `${app.t.config.appUrl}/pay/${quoteId}/return`,
    });
    const text = JSON.stringify(checkout);
    expect(text).not.toContain(TEST_GATEWAY_KEYS.keySecret);
    expect(text).not.toContain(TEST_GATEWAY_KEYS.webhookSecret);
    // The gateway's order is for this checkout, amount and all; starting again reuses it.
    const order = await app.gw.client.getOrder(checkout.order_id);
    expect(order).toMatchObject({ amount: 21_000, receipt: checkout.id, status: 'created' });
    const again = await start(quoteId);
    expect(again.body).toMatchObject({ id: checkout.id, order_id: checkout.order_id });
    expect(await app.gw.client.findOrdersByReceipt(checkout.id)).toHaveLength(1);
  });

  it('settles a verified, captured payment through the pipeline, once', async () => {
    const { quoteId, checkout } = await started(22_000);
    const fields = await payInWidget(checkout.order_id);
    const done = await complete(quoteId, checkout.id, { ...fields });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      status: 'paid',
      payment_reference: fields.gateway_payment_id,
      receipt_id: expect.stringMatching(/^rcp_/) as string,
    });
    const intentId = done.body.intent_id as string;
    expect(
      await one('SELECT status, rail, rail_reference FROM payment_intents WHERE id = $1', [
        intentId,
      ]),
    ).toEqual({ status: 'settled', rail: 'gateway', rail_reference: fields.gateway_payment_id });
    expect(
      await count(`outbox_events WHERE subject_id = $1 AND type = 'intent.settled'`, [intentId]),
    ).toBe(1);
    const view = await request(app.t.url).get(base(quoteId));
    expect(view.body.quote.status).toBe('paid');
    // The same fields again: the same paid checkout, nothing new.
    const twice = await complete(quoteId, checkout.id, { ...fields });
    expect(twice.body).toMatchObject({ status: 'paid', intent_id: intentId });
    expect(await count('payment_intents WHERE source_id = $1', [checkout.id])).toBe(1);
  });

  it('refuses a forged signature, and records nothing', async () => {
    const { quoteId, checkout } = await started(23_000);
    const fields = await payInWidget(checkout.order_id);
    for (const gateway_signature of [
      '0'.repeat(64),
      paymentSignature(checkout.order_id, fields.gateway_payment_id, 'not-the-key-secret'),
    ]) {
      const res = await complete(quoteId, checkout.id, { ...fields, gateway_signature });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_payment_signature');
    }
    expect(await count('payment_intents WHERE source_id = $1', [checkout.id])).toBe(0);
    expect(
      await one('SELECT status, attempts FROM hosted_checkouts WHERE id = $1', [checkout.id]),
    ).toEqual({ status: 'created', attempts: 0 });
  });

  it('refuses a genuine signature made for another order', async () => {
    const mine = await started(24_000);
    const theirs = await started(24_000);
    const theirFields = await payInWidget(theirs.checkout.order_id);
    // Their whole signed triple, posted to my checkout.
    const res = await complete(mine.quoteId, mine.checkout.id, { ...theirFields });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_payment_signature');
    // Their payment id and signature with my order id.
    const mixed = await complete(mine.quoteId, mine.checkout.id, {
      ...theirFields,
      gateway_order_id: mine.checkout.order_id,
    });
    expect(mixed.status).toBe(400);
    expect(await count('payment_intents WHERE source_id = $1', [mine.checkout.id])).toBe(0);
  });

  it('retries a failed attempt on the same order', async () => {
    const { quoteId, checkout } = await started(25_000);
    await expect(payInWidget_fail(checkout.order_id)).rejects.toBeTruthy();
    // Still the same live checkout and order.
    const again = await start(quoteId);
    expect(again.body).toMatchObject({
      id: checkout.id,
      status: 'created',
      order_id: checkout.order_id,
    });
    const fields = await payInWidget(checkout.order_id);
    const done = await complete(quoteId, checkout.id, { ...fields });
    expect(done.body.status).toBe('paid');
    const order = await app.gw.client.getOrder(checkout.order_id);
    expect(order).toMatchObject({ status: 'paid', attempts: 2 });
    const payments = await app.gw.client.listOrderPayments(checkout.order_id);
    expect(payments.map((p) => p.status)).toEqual(['failed', 'captured']);
  });

  function payInWidget_fail(orderId: string) {
    return app.gw.sim.control.pay(orderId, { outcome: 'fail' });
  }

  it('refuses the sandbox outcome on the gateway rail, and fields missing', async () => {
    const { quoteId, checkout } = await started(26_000);
    const res = await complete(quoteId, checkout.id, { outcome: 'success' });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('$.outcome');
    const partial = await complete(quoteId, checkout.id, {
      gateway_order_id: checkout.order_id,
    });
    expect(partial.status).toBe(400);
    expect(partial.body.error.param).toBe('$.gateway_payment_id');
  });

  describe('the return route {app_url}/pay/<quote_id>/return', () => {
    const postReturn = (quoteId: string, form: Record<string, string>) =>
      request(app.t.url)
        .post(`/app/pay/${quoteId}/return`)
        .type('form')
        .set('Origin', app.gw.sim.url) // the gateway's page posts it, cross-site
        .send(form);

    it('completes a redirect payment and lands on our status page', async () => {
      const { quoteId, checkout } = await started(27_000);
      const fields = await payInWidget(checkout.order_id);
      const res = await postReturn(quoteId, { ...fields });
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe(
        `/app/pay/${quoteId}/status?checkout=${encodeURIComponent(checkout.id)}`,
      );
      expect(await one('SELECT status FROM hosted_checkouts WHERE id = $1', [checkout.id])).toEqual(
        { status: 'paid' },
      );
      const page = await request(app.t.url).get(res.headers.location);
      expect(page.text).toContain('Payment received');
    });

    it('never redirects off our origin, whatever is posted', async () => {
      const { quoteId, checkout } = await started(28_000);
      for (const form of [
        {
          gateway_payment_id: 'pay_x',
          gateway_order_id: checkout.order_id,
          gateway_signature: 'x',
        },
        { gateway_order_id: '//evil.example/x', callback_url: 'https://evil.example' },
        {},
      ]) {
        const res = await postReturn(quoteId, form as Record<string, string>);
        expect(res.status).toBe(303);
        const location = res.headers.location;
        expect(location.startsWith(`/app/pay/${quoteId}`)).toBe(true);
        expect(location.startsWith('//')).toBe(false);
      }
      expect(await count('payment_intents WHERE source_id = $1', [checkout.id])).toBe(0);
      const get = await request(app.t.url).get(`/app/pay/${quoteId}/return`);
      expect(get.status).toBe(303);
      expect(get.headers.location).toBe(`/app/pay/${quoteId}`);
    });
  });

  it('the pay page’s CSP allows the gateway’s origin for script, frame and connect, and nothing else', async () => {
    const quoteId = await createQuote(app.t, ws, 29_000);
    const page = await request(app.t.url).get(`/app/pay/${quoteId}`);
    const csp = page.headers['content-security-policy'];
    const directive = (name: string) =>
      csp
        .split(';')
        .map((d) => d.trim())
        .find((d) => d.startsWith(`${name} `));
    const origin = new URL(app.gw.sim.url).origin;
    expect(directive('script-src')).toBe(`script-src 'self' ${origin}`);
    expect(directive('frame-src')).toBe(`frame-src ${origin}`);
    expect(directive('connect-src')).toBe(`connect-src 'self' ${origin}`);
    expect(directive('default-src')).toBe("default-src 'none'");
    expect(directive('frame-ancestors')).toBe("frame-ancestors 'none'");
    expect(page.text).toContain(`<script src="${app.gw.sim.url}/v1/checkout.js" defer></script>`);
  });

  it('the gateway panel speaks the page’s language, also in what its script says (data- attributes)', async () => {
    const quoteId = await createQuote(app.t, ws, 29_000);
    const en = await request(app.t.url).get(`/app/pay/${quoteId}`).set('Accept-Language', 'en-IN');
    expect(en.text).toContain('<h2 id="gateway-heading">Pay with UPI</h2>');
    expect(en.text).toContain('data-api-words="yes"');
    expect(en.text).toContain('data-confirming="Confirming your payment…"');
    const hi = await request(app.t.url).get(`/app/pay/${quoteId}`).set('Accept-Language', 'hi-IN');
    expect(hi.text).toContain('<html lang="hi-IN">');
    expect(hi.text).toContain('<h2 id="gateway-heading">UPI से भुगतान करें</h2>');
    expect(hi.text).toContain('>₹290.00 का भुगतान करें</button>');
    expect(hi.text).toContain('data-confirming="आपके भुगतान की पुष्टि हो रही है…"');
    // The API's English error words are not shown on a Hindi page.
    expect(hi.text).not.toContain('data-api-words');
  });
});
