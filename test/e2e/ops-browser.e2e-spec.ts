import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

import type { Browser, Page } from 'playwright-core';

import { OperatorsService } from '../../src/ops/operators.service';
import { startApp, TestApp } from '../support/app';
import { describeInBrowser, launchBrowser, SCREENSHOT_DIR } from '../support/browser';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * The queue dashboard in Debian's Chromium, with its Content-Security-Policy enforced: an
 * operator signs in through the app's form and lands on a working Bull Board (its scripts run,
 * its styles apply, its API answers, every queue is listed). The only refusal allowed is
 * Bull Board's third-party web-font stylesheet.
 */

const BASE = '/app/ops/queues';
const FONTS = 'fonts.googleapis.com';

interface Watched {
  page: Page;
  problems: string[];
  blockedFonts: number;
}

async function watchedPage(browser: Browser): Promise<Watched> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  const w: Watched = { page, problems: [], blockedFonts: 0 };
  page.on('console', (msg) => {
    if (msg.type() !== 'error' || /^Failed to load resource/.test(msg.text())) {
      return;
    }
    if (msg.text().includes(FONTS)) {
      w.blockedFonts += 1;
    } else {
      w.problems.push(`console: ${msg.text()}`);
    }
  });
  page.on('pageerror', (err) => w.problems.push(`page error: ${err.message}`));
  page.on('requestfailed', (req) => {
    if (!req.url().includes(FONTS)) {
      w.problems.push(`request failed: ${req.url()} (${req.failure()?.errorText ?? '?'})`);
    }
  });
  page.on('response', (res) => {
    if (res.status() >= 400) {
      w.problems.push(`${res.status()} ${res.request().method()} ${res.url()}`);
    }
  });
  return w;
}

async function signInThroughForm(page: Page, url: string, email: string, password: string) {
  await page.goto(`${url}/app/login?next=${encodeURIComponent(BASE)}`);
  await page.fill('input[name="email"]', email);
  await page.fill('input[name="password"]', password);
  await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
}

describeInBrowser('the queue dashboard in a browser', () => {
  let t: TestApp;
  let browser: Browser;
  let member: SeededWorkspace;
  let operator: { email: string; password: string };

  beforeAll(async () => {
    t = await startApp({ runWorkers: false });
    member = await seedWorkspace(t);
    operator = await t
      .get(OperatorsService)
      .ensureOperator(
        { email: 'browser-ops@ops.test', name: 'On-call', workspaceName: 'Operators' },
        { type: 'system', id: 'test' },
      );
    browser = await launchBrowser();
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await t.close();
  });

  it('an operator signs in and gets a working Bull Board under the enforced CSP', async () => {
    const w = await watchedPage(browser);
    await signInThroughForm(w.page, t.url, operator.email, operator.password);
    expect(new URL(w.page.url()).pathname).toBe(BASE);
    for (const queue of ['maintenance', 'approvals', 'webhooks']) {
      await w.page.getByText(queue, { exact: true }).first().waitFor();
    }
    // A queue's own page: its jobs by state, read through the board's API.
    await w.page.getByText('approvals', { exact: true }).first().click();
    await w.page.waitForURL(`**${BASE}/queue/approvals**`);
    await w.page
      .getByText(/delayed/i)
      .first()
      .waitFor();
    await w.page.waitForLoadState('networkidle');
    await w.page.screenshot({ path: join(SCREENSHOT_DIR, 'ops-queues-1280.png'), fullPage: true });
    expect(w.problems).toEqual([]);
    // Its stylesheet applied: the board's layout is not the browser's default.
    const background = await w.page.evaluate(
      () =>
        (
          globalThis as unknown as {
            getComputedStyle(e: unknown): { backgroundColor: string };
            document: { body: unknown };
          }
        ).getComputedStyle((globalThis as unknown as { document: { body: unknown } }).document.body)
          .backgroundColor,
    );
    expect(background).not.toBe('rgba(0, 0, 0, 0)');
    await w.page.context().close();
  });

  it('a customer who signs in gets the app 404 page there', async () => {
    const w = await watchedPage(browser);
    await signInThroughForm(w.page, t.url, member.email, member.password);
    expect(await w.page.textContent('h1')).toBe('Not found');
    // Nothing of the dashboard shows (the page's own links may carry the path the person typed).
    expect(await w.page.innerText('body')).not.toMatch(/bull|queue/i);
    expect(
      await w.page
        .locator('script[src], link[rel="stylesheet"]')
        .evaluateAll((els) =>
          els.map((e) => (e as unknown as { outerHTML: string }).outerHTML).join(' '),
        ),
    ).not.toMatch(/bull|queue/i);
    await w.page.context().close();
  });
});
