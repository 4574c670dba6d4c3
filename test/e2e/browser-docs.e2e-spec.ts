import type { Browser, Page } from 'playwright-core';

import { startApp, TestApp } from '../support/app';
import { describeInBrowser, launchBrowser, newPage } from '../support/browser';

/**
 * Swagger UI at /docs, in Chromium with its CSP enforced, on an instance on a random (so not the
 * default 3000) port: "Try it out" → Execute on GET /health answers 200 in the response panel.
 * Once where BASE_URL is the instance's address, once in sandbox mode where BASE_URL names another
 * address (the page then calls the origin it was opened on). docs/configuration.md "BASE_URL".
 */
describeInBrowser('Swagger UI "Try it out" on any port', () => {
  let browser: Browser;
  let apps: TestApp[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    apps = [
      await startApp(),
      await startApp({ mode: 'sandbox', baseUrl: 'http://localhost:3000' }),
    ];
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    for (const a of apps) {
      await a.close();
    }
  });

  async function tryHealth(
    page: Page,
    url: string,
  ): Promise<{ status: string; problems: string[] }> {
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') {
        problems.push(m.text());
      }
    });
    page.on('requestfailed', (r) => problems.push(`${r.url()} ${r.failure()?.errorText ?? ''}`));
    await page.goto(`${url}/docs`, { waitUntil: 'domcontentloaded', timeout: 30_000 });
    const op = page.locator('.opblock-get:has(.opblock-summary-path[data-path="/health"])').first();
    await op.waitFor({ timeout: 30_000 });
    await op.locator('.opblock-summary').first().click();
    await op.locator('button.try-out__btn').click();
    await op.locator('button.execute').click();
    const status = op.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor({ timeout: 30_000 });
    return { status: (await status.textContent())?.trim() ?? '', problems };
  }

  it('executes GET /health from /docs where BASE_URL is the instance (test mode)', async () => {
    const [t] = apps;
    expect(new URL(t.url).port).not.toBe('3000');
    expect(t.config.baseUrl).toBe(t.url);
    const page = await newPage(browser, 'desktop');
    const servers = page.locator('.servers select option');
    const { status, problems } = await tryHealth(page, t.url);
    expect(await servers.allTextContents()).toEqual([expect.stringContaining(t.url)]);
    expect(status).toBe('200');
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('executes GET /health from /docs opened on another address than BASE_URL (sandbox mode)', async () => {
    const t = apps[1];
    const page = await newPage(browser, 'desktop');
    const { status, problems } = await tryHealth(page, t.url);
    expect(status).toBe('200');
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);
});
