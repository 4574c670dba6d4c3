import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';

import { Page } from 'playwright-core';
import { validatePaymentVerification } from 'razorpay/dist/utils/razorpay-utils';

import {
  axeViolations,
  browserHarness,
  checkPage,
  describeInBrowser,
  formatViolations,
  newPage,
} from '../support/browser';
import { startTestGateway, TestGateway } from '../support/gateway';

/**
 * The simulator's checkout widget in real Chromium. A tiny merchant page on another loopback
 * origin (with a strict CSP naming the simulator) loads <sim>/v1/checkout.js, opens it and the
 * test clicks inside the gateway's iframe: Pay hands the handler the three fields with a valid
 * signature; Fail fires payment.failed and a retry on the same order then succeeds; redirect
 * mode POSTs the fields to callback_url; closing calls ondismiss; a forged message from another
 * origin is ignored. The simulator's own pages pass the app's page checks.
 */

declare const window: {
  __result?: Record<string, string>;
  __failures: { error: { code: string; description: string; metadata: Record<string, string> } }[];
  __dismissed?: boolean;
  postMessage(message: unknown, targetOrigin: string): void;
};

const MERCHANT_JS = `
(function () {
  var d = document.body.dataset;
  window.__failures = [];
  document.getElementById('pay').addEventListener('click', function () {
    var checkout = new window.GatewayCheckout({
      key: d.key, order_id: d.order, amount: Number(d.amount), currency: 'INR',
      name: 'Chai Co', description: 'Darjeeling tea hamper',
      callback_url: d.callback, redirect: d.redirect === 'true',
      handler: function (resp) {
        window.__result = resp;
        document.getElementById('result').textContent = 'paid ' + resp.gateway_payment_id;
      },
      modal: { ondismiss: function () { window.__dismissed = true; } }
    });
    checkout.on('payment.failed', function (resp) { window.__failures.push(resp); });
    checkout.open();
  });
})();
`;

describeInBrowser('gateway simulator checkout widget in Chromium', () => {
  const b = browserHarness();
  let gw: TestGateway;
  let merchant: Server;
  let merchantUrl: string;
  const returns: string[] = [];

  beforeAll(async () => {
    gw = await startTestGateway();
    merchant = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://merchant');
      if (url.pathname === '/merchant.js') {
        res.writeHead(200, { 'content-type': 'application/javascript' });
        res.end(MERCHANT_JS);
        return;
      }
      if (url.pathname === '/return' && req.method === 'POST') {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () => {
          returns.push(body);
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end('<!doctype html><title>Thanks</title><p id="thanks">Thanks</p>');
        });
        return;
      }
      const q = url.searchParams;
      const attr = (v: string | null) => (v ?? '').replace(/[^A-Za-z0-9_:/.-]/g, '');
      res.writeHead(200, {
        'content-type': 'text/html',
        // What a merchant page needs to host the widget: the simulator as script and frame source.
        'content-security-policy': `default-src 'self'; script-src 'self' ${gw.sim.url}; frame-src ${gw.sim.url}; form-action 'self'`,
      });
      res.end(`<!doctype html><html lang="en"><head><title>Shop</title></head>
<body data-key="${attr(q.get('key'))}" data-order="${attr(q.get('order'))}" data-amount="${attr(q.get('amount'))}"
 data-callback="${merchantUrl}/return" data-redirect="${attr(q.get('redirect'))}">
<button id="pay" type="button">Pay now</button><p id="result"></p>
<script src="${gw.sim.url}/v1/checkout.js"></script><script src="/merchant.js"></script>
</body></html>`);
    });
    await new Promise<void>((r) => merchant.listen(0, '127.0.0.1', r));
    merchantUrl = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await gw?.close();
    merchant?.closeAllConnections();
    await new Promise((r) => merchant?.close(r));
  });

  async function openCheckout(page: Page, amount: number, redirect = false) {
    const order = await gw.client.createOrder({ amount, currency: 'INR', receipt: 'widget' });
    const q = new URLSearchParams({
      key: gw.keys.keyId,
      order: order.id,
      amount: String(amount),
      redirect: String(redirect),
    });
    await page.goto(`${merchantUrl}/shop?${q.toString()}`);
    await page.click('#pay');
    const frame = page.frameLocator('iframe[data-gateway-checkout="frame"]');
    await frame.getByRole('button', { name: 'Pay', exact: true }).waitFor();
    return { order, frame };
  }

  it('Pay: the handler receives the three fields with a valid signature', async () => {
    const page = b.page('mobile');
    const { order, frame } = await openCheckout(page, 25_000);
    await frame.getByText('₹250.00').waitFor();
    await frame.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.waitForFunction(() => window.__result !== undefined);
    const result = (await page.evaluate(() => window.__result))!;
    expect(Object.keys(result).sort()).toEqual([
      'gateway_order_id',
      'gateway_payment_id',
      'gateway_signature',
    ]);
    expect(result.gateway_order_id).toBe(order.id);
    expect(
      validatePaymentVerification(
        { order_id: order.id, payment_id: result.gateway_payment_id },
        result.gateway_signature,
        gw.keys.keySecret,
      ),
    ).toBe(true);
    expect(await page.locator('[data-gateway-checkout="overlay"]').count()).toBe(0);
    expect(await gw.client.getPayment(result.gateway_payment_id)).toMatchObject({
      status: 'captured',
      amount: 25_000,
    });
  });

  it('Fail fires payment.failed; Pay again on the same order succeeds', async () => {
    const page = b.page('mobile');
    const { order, frame } = await openCheckout(page, 12_300);
    await frame.getByRole('button', { name: 'Fail', exact: true }).click();
    await page.waitForFunction(() => window.__failures.length === 1);
    const [failure] = await page.evaluate(() => window.__failures);
    expect(failure.error).toMatchObject({
      code: 'BAD_REQUEST_ERROR',
      reason: 'payment_failed',
      metadata: { order_id: order.id },
    });
    expect(failure.error.metadata.payment_id).toMatch(/^pay_/);
    await frame.getByText('You can try again').waitFor();
    expect(await page.evaluate(() => window.__result)).toBeUndefined();

    await frame.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.waitForFunction(() => window.__result !== undefined);
    const result = (await page.evaluate(() => window.__result))!;
    expect(result.gateway_order_id).toBe(order.id);
    expect(
      validatePaymentVerification(
        { order_id: order.id, payment_id: result.gateway_payment_id },
        result.gateway_signature,
        gw.keys.keySecret,
      ),
    ).toBe(true);
    const payments = await gw.client.listOrderPayments(order.id);
    expect(payments.map((p) => p.status)).toEqual(['failed', 'captured']);
    expect(payments[0].id).toBe(failure.error.metadata.payment_id);
  });

  it('an amount trigger fails in the widget like on the API', async () => {
    const page = b.page('mobile');
    await openCheckout(page, 10_051);
    const frame = page.frameLocator('iframe[data-gateway-checkout="frame"]');
    await frame.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.waitForFunction(() => window.__failures.length === 1);
    const [failure] = await page.evaluate(() => window.__failures);
    expect(failure.error).toMatchObject({ reason: 'insufficient_funds' });
  });

  it('redirect: the fields are POSTed as a form to callback_url', async () => {
    const page = b.page('desktop');
    returns.length = 0;
    const { order, frame } = await openCheckout(page, 5_000, true);
    await Promise.all([
      page.waitForURL(`${merchantUrl}/return`),
      frame.getByRole('button', { name: 'Pay', exact: true }).click(),
    ]);
    expect(returns).toHaveLength(1);
    const form = new URLSearchParams(returns[0]);
    expect(form.get('gateway_order_id')).toBe(order.id);
    expect(
      validatePaymentVerification(
        { order_id: order.id, payment_id: form.get('gateway_payment_id')! },
        form.get('gateway_signature')!,
        gw.keys.keySecret,
      ),
    ).toBe(true);
  });

  it('closing calls ondismiss; a forged message from the merchant origin is ignored', async () => {
    const page = b.page('mobile');
    const { order } = await openCheckout(page, 4_000);
    await page.evaluate((orderId) => {
      window.postMessage(
        {
          source: 'gateway-checkout',
          type: 'payment.success',
          order_id: orderId,
          response: {
            gateway_payment_id: 'pay_forged',
            gateway_order_id: orderId,
            gateway_signature: '00',
          },
        },
        '*',
      );
    }, order.id);
    await page.waitForTimeout(100);
    expect(await page.evaluate(() => window.__result)).toBeUndefined();
    await page.getByRole('button', { name: 'Close the payment window' }).click();
    expect(await page.evaluate(() => window.__dismissed)).toBe(true);
    expect(await page.locator('[data-gateway-checkout="overlay"]').count()).toBe(0);
    expect((await gw.client.getOrder(order.id)).status).toBe('created');
  });

  it("the simulator's pages pass the page checks; the checkout frame has no serious axe issue", async () => {
    // A fresh page: the failed payments above left expected 400s on the shared one.
    const page = await newPage(b.browser(), 'mobile');
    const link = await gw.client.createPaymentLink({
      amount: 99_900,
      currency: 'INR',
      reference_id: 'axe-link',
      description: 'A very long description of a hamper of first flush Darjeeling tea and biscuits',
    });
    await page.goto(link.short_url);
    await checkPage(page, { name: 'gateway-sim-link' });

    const customer = await gw.client.createCustomer({ name: 'Asha' });
    const reg = await gw.client.createOrder({
      amount: 0,
      currency: 'INR',
      receipt: 'axe-reg',
      method: 'upi',
      customer_id: customer.id,
      token: { max_amount: 500_000, expire_at: 4_000_000_000, frequency: 'monthly' },
    });
    await page.goto(`${gw.sim.url}/authorize/${reg.id}`);
    await checkPage(page, { name: 'gateway-sim-authorize' });
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Approved.').waitFor();
    expect((await gw.client.listTokens(customer.id))[0].recurring_details.status).toBe('confirmed');

    const order = await gw.client.createOrder({ amount: 1_000, currency: 'INR', receipt: 'axe' });
    await page.goto(
      `${gw.sim.url}/checkout/embedded?key_id=${gw.keys.keyId}&order_id=${order.id}&origin=${encodeURIComponent(merchantUrl)}`,
    );
    expect(formatViolations(await axeViolations(page))).toBe('');
    await page.context().close();
  });
});
