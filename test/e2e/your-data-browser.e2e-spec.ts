import { startApp, TestApp } from '../support/app';
import {
  browserHarness,
  checkPage,
  clickAndWait,
  describeInBrowser,
  signInThroughForm,
} from '../support/browser';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * "Your data" on a phone (390×844) in Chromium: the page, its correction form and the erasure
 * confirmation pass checkPage (security headers, no CSP refusal, no sideways scroll, no serious
 * axe violation); a correction shows at once; erasure asks first, then signs the person out.
 */
describeInBrowser('Your data in a browser', () => {
  const b = browserHarness();
  let t: TestApp;
  let ws: SeededWorkspace;

  beforeAll(async () => {
    t = await startApp();
    ws = await seedWorkspace(t);
  }, 30_000);
  afterAll(() => t?.close());

  it('shows, corrects and erases at 390×844', async () => {
    const page = b.page('mobile');
    await signInThroughForm(page, `${t.url}/app/login?next=/app/your-data`, ws.email, ws.password);
    expect(new URL(page.url()).pathname).toBe('/app/your-data');
    await checkPage(page, { name: 'your-data' });
    await expect(page.locator('#download').getAttribute('href')).resolves.toBe(
      '/app/your-data/download',
    );
    await expect(page.locator('#grievance').textContent()).resolves.toContain('30 days');

    await page.locator('input[name="phone"]').fill('98765 43210');
    await clickAndWait(page, () => page.locator('#correct [type="submit"]').click());
    await expect(page.locator('#profile-facts').textContent()).resolves.toContain('9876543210');
    await checkPage(page, { name: 'your-data-corrected' });

    await clickAndWait(page, () => page.locator('a[href="/app/your-data/erase"]').click());
    await checkPage(page, { name: 'your-data-erase' });
    await page.locator('input[name="understood"]').check();
    await clickAndWait(page, () => page.locator('#erase-form [type="submit"]').click());
    await checkPage(page, { name: 'your-data-erased' });
    await expect(page.locator('h1').textContent()).resolves.toBe('Your data was erased');
    await page.goto(`${t.url}/app/your-data`);
    expect(new URL(page.url()).pathname).toBe('/app/login');
  }, 60_000);
});
