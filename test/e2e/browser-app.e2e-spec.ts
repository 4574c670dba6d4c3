import type { Page } from 'playwright-core';

import { payFreeFormQuote } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { insertMandate, insertToken } from '../factories/payment-fixtures';
import {
  completeTeaOrder,
  listTeaAndBiscuits,
  openTeaSession,
} from '../factories/tea-checkout.factory';
import { startApp, TestApp } from '../support/app';
import {
  browserHarness,
  checkPage,
  clickAndWait,
  describeInBrowser,
  newPage,
  VIEWPORT_NAMES,
} from '../support/browser';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * The person's app in a real browser (Debian's Chromium through playwright-core), at 1280×800
 * and 390×844: sign in, approve and deny payments, authorise a mandate, revoke in the consent
 * centre, open an order page. Every page passes checkPage(): security headers, no CSP refusal,
 * no horizontal overflow, no serious or critical axe-core violation. Screenshots land in
 * .tmp/screenshots/.
 */
describeInBrowser('the app in a browser', () => {
  const b = browserHarness();
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({ approvalTtlSeconds: 3600 });
  }, 30_000);
  afterAll(() => t?.close());

  const one = async <T>(sql: string, params: unknown[]): Promise<T> =>
    (await t.db.query<T[]>(sql, params))[0];

  /** A waiting payment (₹2,500: above the ₹2,000 threshold) and its approval. */
  async function waitingPayment(ws: SeededWorkspace, mandateId: string, name: string) {
    const paid = await payFreeFormQuote(t, {
      seller: ws.seller,
      buyer: ws.buyer,
      mandateId,
      amountPaise: 250_000,
      name,
    });
    expect(paid.intent.status).toBe('requires_approval');
    const approval = await one<{ id: string }>(`SELECT id FROM approvals WHERE subject_id = $1`, [
      paid.intent.id,
    ]);
    return { intentId: paid.intent.id, approvalId: approval.id };
  }

  /** Submits the form posting to `action` and waits for the page it leads to. */
  async function submit(page: Page, action: string): Promise<void> {
    await clickAndWait(page, () =>
      page.locator(`form[action="${action}"] [type="submit"]`).first().click(),
    );
  }

  /** Above ₹2,000 the app may ask again before anything happens: confirm when it does. */
  async function confirmIfAsked(page: Page, name: string): Promise<void> {
    const confirm = page.locator('form:has(input[name="confirm"][value="yes"]) [type="submit"]');
    if ((await confirm.count()) > 0) {
      await checkPage(page, { name: `${name}-confirm` });
      await clickAndWait(page, () => confirm.first().click());
    }
  }

  describe.each(VIEWPORT_NAMES)('at %s width', (viewport) => {
    let ws: SeededWorkspace;
    let page: Page;
    let toApprove: { intentId: string; approvalId: string };
    let toDeny: { intentId: string; approvalId: string };
    let pendingMandate: string;
    let activeMandate: string;
    let liveToken: string;
    let orderId: string;

    beforeAll(async () => {
      page = b.page(viewport);
      ws = await seedWorkspace(t);
      activeMandate = await createMandate(t, { workspaceId: ws.workspaceId, agentId: ws.buyer.id });
      toApprove = await waitingPayment(ws, activeMandate, 'Electric kettle');
      toDeny = await waitingPayment(ws, activeMandate, 'Pressure cooker');
      pendingMandate = await createMandate(
        t,
        { workspaceId: ws.workspaceId, agentId: ws.buyer.id },
        { status: 'pending_authorisation' },
      );
      await listTeaAndBiscuits(t, ws, 'Biscuits');
      const checkoutMandate = await insertMandate(t, ws);
      orderId = await completeTeaOrder(t, ws, checkoutMandate);
      liveToken = await insertToken(t, ws, {
        sessionId: await openTeaSession(t, ws),
        mandateId: checkoutMandate,
      });
    }, 30_000);

    it('signs in', async () => {
      await page.goto(`${t.url}/app/login`);
      await checkPage(page, { name: 'login' });
      await page.locator('input[name="email"]').fill(ws.email);
      await page.locator('input[name="password"]').fill(ws.password);
      await submit(page, '/app/login');
      expect(new URL(page.url()).pathname).toBe('/app');
      await checkPage(page, { name: 'home' });
    });

    it('approves a waiting payment', async () => {
      await page.goto(`${t.url}/app/approvals`);
      await checkPage(page, { name: 'approvals' });
      expect(
        await page.locator(`[data-approval="${toApprove.approvalId}"]`).count(),
      ).toBeGreaterThan(0);
      await submit(page, `/app/approvals/${toApprove.approvalId}/approve`);
      await confirmIfAsked(page, 'approve');
      await checkPage(page, { name: 'approved' });
      expect(
        await one(`SELECT status FROM payment_intents WHERE id = $1`, [toApprove.intentId]),
      ).toEqual({ status: 'settled' });
      // "Paid." is a success, in green, never in the yellow of a warning.
      const paid = page.locator('p.notice[role="status"]');
      expect(await paid.getAttribute('data-tone')).toBe('good');
      const background = await paid.evaluate(
        (el) =>
          (
            globalThis as unknown as {
              getComputedStyle(e: unknown): { backgroundColor: string };
            }
          ).getComputedStyle(el).backgroundColor,
      );
      expect(background).toBe('rgb(232, 245, 236)');
    });

    it('denies a waiting payment', async () => {
      await page.goto(`${t.url}/app/approvals`);
      await submit(page, `/app/approvals/${toDeny.approvalId}/deny`);
      await confirmIfAsked(page, 'deny');
      await checkPage(page, { name: 'denied' });
      expect(
        await one(`SELECT status, decline_code FROM payment_intents WHERE id = $1`, [
          toDeny.intentId,
        ]),
      ).toEqual({
        status: 'declined',
        decline_code: 'approval_denied',
      });
    });

    it('authorises a pending mandate', async () => {
      await page.goto(`${t.url}/app/mandates/${pendingMandate}/authorize`);
      await checkPage(page, { name: 'mandate-authorize' });
      await submit(page, `/app/mandates/${pendingMandate}/authorize`);
      await confirmIfAsked(page, 'authorise');
      await checkPage(page, { name: 'mandate-authorised' });
      expect(
        await one(`SELECT status, authorised_by FROM mandates WHERE id = $1`, [pendingMandate]),
      ).toEqual({
        status: 'active',
        authorised_by: ws.personId,
      });
    });

    it('revokes a live token and a mandate in the consent centre', async () => {
      await page.goto(`${t.url}/app/consent`);
      await checkPage(page, { name: 'consent' });
      await submit(page, `/app/consent/tokens/${liveToken}/revoke`);
      await confirmIfAsked(page, 'revoke-token');
      await checkPage(page, { name: 'consent-token-revoked' });
      expect(await one(`SELECT status FROM delegated_tokens WHERE id = $1`, [liveToken])).toEqual({
        status: 'revoked',
      });
      await submit(page, `/app/consent/mandates/${pendingMandate}/revoke`);
      await confirmIfAsked(page, 'revoke-mandate');
      await checkPage(page, { name: 'consent-mandate-revoked' });
      expect(await one(`SELECT status FROM mandates WHERE id = $1`, [pendingMandate])).toEqual({
        status: 'revoked',
      });
    });

    it('opens an order page', async () => {
      await page.goto(`${t.url}/app/orders/${orderId}`);
      await checkPage(page, { name: 'order' });
      expect(await page.textContent('body')).toContain('₹925.00');
    });

    it('shows the sign-up page and an error page', async () => {
      await page.goto(`${t.url}/app/signup`);
      await checkPage(page, { name: 'signup' });
      await page.goto(`${t.url}/app/orders/ord_doesnotexist`);
      await checkPage(page, { name: 'not-found', status: 404 });
    });
  });

  it('the harness itself catches missing headers, CSP refusals, overflow and axe violations', async () => {
    const page = await newPage(b.browser(), 'mobile');
    try {
      await page.route('http://harness.test/**', (route) =>
        route.request().url().endsWith('.css')
          ? route.fulfill({
              contentType: 'text/css',
              body: '.wide { width: 2000px } .faint { color: #ccc }',
            })
          : route.fulfill({
              contentType: 'text/html',
              headers: { 'content-security-policy': "default-src 'self'" },
              body:
                '<!doctype html><html lang="en"><head><title>Bad</title><link rel="stylesheet" href="/bad.css">' +
                '<style>h1 { color: red }</style></head><body><main><h1>Bad page</h1><div class="wide">wide</div>' +
                '<p class="faint">faint text</p><input type="text" name="unlabelled"></main></body></html>',
            }),
      );
      await page.goto('http://harness.test/');
      const failure = await checkPage(page, { name: 'harness-self-test' }).then(
        () => '',
        (err: Error) => err.message,
      );
      expect(failure).toContain('header: CSP frame-ancestors');
      expect(failure).toContain('header: X-Content-Type-Options');
      expect(failure).toContain('header: Referrer-Policy');
      expect(failure).toContain('console: Applying inline style violates');
      expect(failure).toMatch(/horizontal overflow: scrollWidth \d+ > innerWidth 390/);
      expect(failure).toContain('div.wide');
      expect(failure).toContain('[serious] color-contrast');
      expect(failure).toContain('[critical] label');
    } finally {
      await page.context().close();
    }
  });

  it('/docs (Swagger UI) renders under its own policy without a CSP refusal', async () => {
    const page = await b.browser().newPage({ viewport: { width: 1280, height: 800 } });
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(e.message));
    try {
      const res = await page.goto(`${t.url}/docs`);
      expect(res?.status()).toBe(200);
      await page.locator('.opblock').first().waitFor({ state: 'visible', timeout: 15_000 });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
