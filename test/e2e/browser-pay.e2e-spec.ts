import request from 'supertest';

import { bearer } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { startApp, TestApp } from '../support/app';
import { browserHarness, checkPage, clickAndWait, describeInBrowser } from '../support/browser';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * The hosted pay page (/app/pay/<quote_id>, no sign-in) in a real browser at 390×844, as the
 * person a seller sent the link to sees it: amount and seller, the TEST MODE banner, "Simulate
 * success" to the paid status page, "Simulate failure" then "Try again", an expired quote. Every
 * page passes checkPage() (headers, no CSP refusal, no overflow, no serious/critical axe issue);
 * the first also at 1280×800.
 */
describeInBrowser('the hosted pay page in a browser', () => {
  const b = browserHarness();
  let t: TestApp;
  let ws: SeededWorkspace;

  beforeAll(async () => {
    t = await startApp();
    ws = await seedWorkspace(t);
    await createMandate(t, { workspaceId: ws.workspaceId, agentId: ws.buyer.id });
  }, 30_000);
  afterAll(() => t?.close());
  afterEach(() => t.clock.reset());

  /** The seller "Chai Co" quotes the buyer; returns the quote and its page's path. */
  async function quote(extra: Record<string, unknown> = {}): Promise<{ id: string; path: string }> {
    const res = await request(t.url)
      .post('/v1/pay/quotes')
      .set(bearer(ws.seller.credential))
      .send({
        buyer_agent_id: ws.buyer.id,
        category: 'food.hampers',
        items: [
          {
            name: 'Darjeeling first flush tea hamper with a very long descriptive product name',
            unit_paise: 300_000,
          },
          { name: 'Gift wrap', unit_paise: 50_000 },
        ],
        ...extra,
      })
      .expect(201);
    const body = res.body as { id: string; pay_url: string };
    return { id: body.id, path: new URL(body.pay_url).pathname };
  }

  it('shows amount, seller and the TEST MODE banner; "Simulate success" lands on the paid status page', async () => {
    const q = await quote();
    const desktop = b.page('desktop');
    await desktop.goto(`${t.url}${q.path}`);
    await checkPage(desktop, { name: 'pay' });

    const page = b.page('mobile');
    await page.goto(`${t.url}${q.path}`);
    await checkPage(page, { name: 'pay' });
    const main = page.locator('main');
    expect(await main.textContent()).toContain('₹3,500.00');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('Chai Co');
    const banner = page.getByText('TEST MODE', { exact: true });
    expect(await banner.isVisible()).toBe(true);

    await clickAndWait(page, () => page.getByRole('button', { name: 'Simulate success' }).click());
    expect(new URL(page.url()).pathname).toBe(`${q.path}/status`);
    await checkPage(page, { name: 'pay-paid' });
    const checkoutId = new URL(page.url()).searchParams.get('checkout')!;
    const checkout = await request(t.url)
      .get(`/v1/public/pay/quotes/${q.id}/checkout/${checkoutId}`)
      .expect(200);
    expect(checkout.body.status).toBe('paid');
    expect(checkout.body.intent_id).toMatch(/^pi_/);
    expect(await main.textContent()).toContain(checkout.body.intent_id as string);
    expect(await page.getByText('TEST MODE', { exact: true }).isVisible()).toBe(true);
  });

  it('the paid status page is a receipt a person keeps: seller, items, total, paid time (IST), method, reference, next steps; ids only under Details; the pay page stops counting down', async () => {
    const q = await quote();
    const page = b.page('mobile');
    const missing: string[] = [];
    page.on('response', (r) => {
      if (r.status() === 404) {
        missing.push(r.url());
      }
    });
    await page.goto(`${t.url}${q.path}`);
    expect(await page.locator('[data-test="countdown"]').count()).toBe(1);
    // The page names its icon, which loads (no /favicon.ico 404 behind every page).
    expect(await page.locator('link[rel="icon"]').getAttribute('href')).toBe(
      '/app/assets/favicon.svg',
    );
    const icon = await request(t.url).get('/app/assets/favicon.svg').expect(200);
    expect(icon.headers['content-type']).toContain('image/svg+xml');
    await clickAndWait(page, () => page.getByRole('button', { name: 'Simulate success' }).click());
    await checkPage(page, { name: 'pay-receipt' });
    const receipt = page.locator('[data-test="receipt"]');
    expect(await receipt.isVisible()).toBe(true);
    const text = (await receipt.innerText()).replace(/\s+/g, ' ');
    expect(text).toContain('Chai Co');
    expect(text).toContain('Darjeeling first flush tea hamper');
    expect(text).toContain('Gift wrap');
    expect(text).toContain('₹3,500.00');
    expect(text).toMatch(/Paid on \d{1,2} \w{3} \d{4}, \d{1,2}:\d{2} [ap]m IST/i);
    expect(text).toContain('Sandbox payment');
    expect(text).toContain('has been told that you paid');
    expect(text).toContain('ask Chai Co for a refund');
    // Ids are folded away under "Details"; what a person reads names no internal id.
    const visible = await page.locator('main').innerText();
    expect(visible).not.toMatch(/\b(pi|hco|qt|rcp|agt|mdt|cs)_[A-Za-z0-9]/);
    await page.getByText('Details', { exact: true }).click();
    expect(await page.locator('main').innerText()).toMatch(/\bpi_[A-Za-z0-9]/);
    // A printable and a downloadable receipt.
    expect(await page.locator('[data-test="print-receipt"]').isVisible()).toBe(true);
    const href = await page.locator('[data-test="download-receipt"]').getAttribute('href');
    const saved = await request(t.url).get(href!).expect(200);
    expect(saved.headers['content-disposition']).toMatch(
      /^attachment; filename="receipt-[\w-]+\.html"$/,
    );
    expect(saved.text).toContain('Darjeeling first flush tea hamper');
    // Back on the pay page: "already paid", and no countdown above it.
    await page.goto(`${t.url}${q.path}`);
    await checkPage(page, { name: 'pay-after-paid' });
    expect(await page.locator('[data-test="countdown"]').count()).toBe(0);
    expect(await page.locator('[data-test="reason"]').innerText()).toContain('already been paid');
    expect(missing).toEqual([]);
  });

  it('"Simulate failure" shows why, and "Try again" goes back to a payable page', async () => {
    const q = await quote();
    const page = b.page('mobile');
    await page.goto(`${t.url}${q.path}`);
    await clickAndWait(page, () => page.getByRole('button', { name: 'Simulate failure' }).click());
    expect(new URL(page.url()).pathname).toBe(`${q.path}/status`);
    await checkPage(page, { name: 'pay-failed' });
    const checkoutId = new URL(page.url()).searchParams.get('checkout')!;
    const checkout = await request(t.url)
      .get(`/v1/public/pay/quotes/${q.id}/checkout/${checkoutId}`)
      .expect(200);
    expect(checkout.body.status).toBe('failed');

    await clickAndWait(page, () => page.getByRole('link', { name: 'Try again' }).click());
    expect(new URL(page.url()).pathname).toBe(q.path);
    await checkPage(page, { name: 'pay-retry' });
    expect(await page.getByRole('button', { name: 'Simulate success' }).isEnabled()).toBe(true);
  });

  it('an expired quote says so and offers no way to pay', async () => {
    const q = await quote({ expires_in_seconds: 60 });
    t.clock.advance(61_000);
    const page = b.page('mobile');
    await page.goto(`${t.url}${q.path}`);
    await checkPage(page, { name: 'pay-expired' });
    expect((await page.locator('main').textContent())!.toLowerCase()).toContain('expired');
    expect(await page.getByRole('button', { name: 'Simulate success' }).count()).toBe(0);
  });
});
