import type { Page } from 'playwright-core';

import { translator } from '../../src/common/i18n/catalogue';
import { randomToken } from '../../src/common/ids';
import { payFreeFormQuote } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { startApp, TestApp } from '../support/app';
import {
  browserHarness,
  CheckOptions,
  checkPage,
  clickAndWait,
  describeInBrowser,
  PAGE_LANGUAGES,
  PageLanguage,
  VIEWPORT_NAMES,
} from '../support/browser';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * The data this test makes: names and items a Hindi page shows as they are, and the names the
 * keys were given (the first API key of a sign-up is named "default"; seedWorkspace's protocol
 * keys "merchant key" and "buyer key").
 */
const SEEDED_DATA = [
  'Test workspace',
  'Test Person',
  'Chai Co',
  'Buyer assistant',
  'Masala tea',
  'merchant key',
  'buyer key',
  'default',
];
const NEW_WORKSPACE = 'Rao Stores';
const NEW_PERSON = 'Asha Rao';
const NEW_DATA = [NEW_WORKSPACE, NEW_PERSON, 'default'];
/** The default grievance officer of a test app (src/config/app.config.ts), shown as data. */
const GRIEVANCE = ['Grievance Officer (sandbox)'];

/**
 * The app's frame and its own pages in English and Hindi at 390×844 and 1280×800 (issue 24
 * items 5 and 6; docs/languages.md): sign-up, the welcome page with the first key, home and
 * developers empty and with data, sign-in (and its error), terms, privacy and the 404 page. Every
 * page passes checkPage with ids only in Details and, in Hindi, no English left but the data this
 * test made. On a phone the nav links stay folded under "Menu" until it is opened, then each is
 * visible and tappable; on a desktop they stand in one row. The language switch turns the same
 * page into the other language, is remembered after a reload, and switches back.
 */
describeInBrowser('the app frame in English and Hindi', () => {
  const b = browserHarness({ hindi: true });
  let t: TestApp;
  let ws: SeededWorkspace;

  beforeAll(async () => {
    t = await startApp();
    ws = await seedWorkspace(t);
    const mandateId = await createMandate(t, { workspaceId: ws.workspaceId, agentId: ws.buyer.id });
    const paid = await payFreeFormQuote(t, {
      seller: ws.seller,
      buyer: ws.buyer,
      mandateId,
      amountPaise: 45_000,
      name: 'Masala tea',
    });
    expect(paid.intent.status).toBe('settled');
  }, 60_000);
  afterAll(() => t?.close());

  describe.each(VIEWPORT_NAMES)('at %s width', (viewport) => {
    describe.each(PAGE_LANGUAGES)('in %s', (lang: PageLanguage) => {
      const tr = translator(lang);
      const email = `asha-${randomToken(8).toLowerCase()}@example.test`;
      const password = `pw-${randomToken(16)}`;
      let page: Page;

      beforeAll(() => {
        page = b.page(viewport, lang);
      });

      /** checkPage with the Hindi check on the Hindi pages and raw ids only in Details. */
      const check = (name: string, data: string[], extra: Partial<CheckOptions> = {}) =>
        checkPage(page, {
          name: `frame-${name}-${lang}`,
          idsOnlyInDetails: true,
          ...(lang === 'hi' ? { hindi: { data } } : {}),
          ...extra,
        });

      const text = async (selector: string) =>
        ((await page.locator(selector).first().textContent()) ?? '').replace(/\s+/g, ' ').trim();

      /** On a phone the links sit in the Menu; on a desktop in the row under the bar. */
      async function openNavIfPhone(): Promise<void> {
        if (
          viewport === 'mobile' &&
          !(await page.locator('details.nav-menu').getAttribute('open'))
        ) {
          await page.locator('details.nav-menu > summary').click();
        }
      }

      async function signOut(): Promise<void> {
        await openNavIfPhone();
        await clickAndWait(page, () =>
          page.locator('form[action="/app/logout"] button[type="submit"]:visible').click(),
        );
        expect(new URL(page.url()).pathname).toBe('/app/login');
      }

      it('signs up: the form and the welcome page with the first key, shown once', async () => {
        await page.goto(`${t.url}/app/signup`);
        await check('signup', []);
        expect(await text('h1')).toBe(tr.t('app.signup.title'));
        expect(await page.title()).toBe(`${tr.t('app.signup.title')} · ${tr.t('common.brand')}`);
        await page.locator('input[name="workspace_name"]').fill(NEW_WORKSPACE);
        await page.locator('input[name="name"]').fill(NEW_PERSON);
        await page.locator('input[name="email"]').fill(email);
        await page.locator('input[name="password"]').fill(password);
        await clickAndWait(page, () =>
          page.locator('form[action="/app/signup"] [type="submit"]').click(),
        );
        await check('welcome', NEW_DATA);
        expect(await text('h1')).toBe(tr.t('app.welcome.heading', { name: NEW_PERSON }));
        expect(await text('main')).toContain(tr.t('app.keys.copy_now'));
        expect(await text('main')).toContain(tr.t('app.keys.shown_once'));
      });

      it('home and developers of a new workspace say what will appear there', async () => {
        await page.goto(`${t.url}/app`);
        await check('home-empty', NEW_DATA);
        expect(await page.title()).toBe(`${tr.t('app.home.title')} · ${tr.t('common.brand')}`);
        const main = await text('main');
        for (const key of [
          'app.home.waiting.none_why',
          'app.home.spend.none_why',
          'app.home.payments.none_why',
          'app.home.refunds.none_why',
        ]) {
          expect(main).toContain(tr.t(key));
        }
        await page.goto(`${t.url}/app/developers`);
        await check('developers-empty', NEW_DATA);
        expect(await text('h1')).toBe(tr.t('app.developers.title'));
        const dev = await text('main');
        expect(dev).toContain(tr.t('app.developers.agents.none'));
        expect(dev).toContain(tr.t('app.developers.protocol.none'));
        await page.locator('#api-key-name').fill('ci deploy');
        await clickAndWait(page, () =>
          page.locator('form[action="/app/api-keys"] [type="submit"]').click(),
        );
        await check('api-key-created', [...NEW_DATA, 'ci deploy']);
        expect(await text('h1')).toBe(tr.t('app.keys.api_title'));
        expect(await text('main')).toContain(tr.t('app.keys.shown_once'));
      });

      it('phone: the nav folds under Menu; desktop: the links stand in one row', async () => {
        await page.goto(`${t.url}/app`);
        const nav = viewport === 'mobile' ? '.menu-nav a' : '.site-nav a';
        const links = page.locator(nav);
        const count = await links.count();
        expect(count).toBeGreaterThanOrEqual(4);
        const labels = await page.locator('.site-nav a').allTextContents();
        expect(labels).toContain(tr.t('app.nav.home'));
        expect(labels).toContain(tr.t('app.nav.developers'));
        expect(await page.locator('.site-nav a[aria-current="page"]').textContent()).toBe(
          tr.t('app.nav.home'),
        );
        if (viewport === 'mobile') {
          expect(await page.locator('.site-nav').isVisible()).toBe(false);
          for (let i = 0; i < count; i++) {
            expect(await links.nth(i).isVisible()).toBe(false);
          }
          const summary = page.locator('details.nav-menu > summary');
          expect(await summary.isVisible()).toBe(true);
          expect((await summary.textContent())?.trim()).toBe(tr.t('common.menu'));
          expect(await page.locator('[data-test="lang-switch"]').isVisible()).toBe(true);
          await summary.click();
          for (let i = 0; i < count; i++) {
            const link = links.nth(i);
            expect(await link.isVisible()).toBe(true);
            const box = await link.boundingBox();
            // A thumb's target: at least 40px high, wholly on the screen.
            expect(box!.height).toBeGreaterThanOrEqual(40);
            expect(box!.x).toBeGreaterThanOrEqual(0);
            expect(box!.x + box!.width).toBeLessThanOrEqual(390);
          }
          const signOutButton = page.locator('.menu-panel form[action="/app/logout"] button');
          expect(await signOutButton.isVisible()).toBe(true);
          expect(await page.locator('.menu-panel .who').textContent()).toContain(email);
          await check('menu-open', NEW_DATA);
          await clickAndWait(page, () =>
            page.locator('.menu-nav a[href="/app/developers"]').click(),
          );
        } else {
          expect(await page.locator('details.nav-menu').isVisible()).toBe(false);
          const tops = new Set<number>();
          for (let i = 0; i < count; i++) {
            expect(await links.nth(i).isVisible()).toBe(true);
            tops.add(Math.round((await links.nth(i).boundingBox())!.y));
          }
          expect(tops.size).toBe(1);
          expect(await page.locator('.site-header .who.wide-only').textContent()).toContain(email);
          await clickAndWait(page, () =>
            page.locator('.site-nav a[href="/app/developers"]').click(),
          );
        }
        expect(new URL(page.url()).pathname).toBe('/app/developers');
        expect(await page.locator(`${nav}[aria-current="page"]`).getAttribute('href')).toBe(
          '/app/developers',
        );
      });

      it('signs out from the header, then sign-in shows its error in the language', async () => {
        await page.goto(`${t.url}/app`);
        await signOut();
        await check('login', []);
        expect(await text('h1')).toBe(tr.t('app.login.title'));
        await page.locator('input[name="email"]').fill(email);
        await page.locator('input[name="password"]').fill('not-the-password');
        await clickAndWait(page, () =>
          page.locator('form[action="/app/login"] [type="submit"]').click(),
        );
        await check('login-error', [], { status: 401 });
        expect(await text('[role="alert"]')).toBe(tr.t('errors.code.invalid_credentials'));
      });

      it('signs in to a workspace with agents, keys and a payment: home and developers', async () => {
        await page.goto(`${t.url}/app/login`);
        await page.locator('input[name="email"]').fill(ws.email);
        await page.locator('input[name="password"]').fill(ws.password);
        await clickAndWait(page, () =>
          page.locator('form[action="/app/login"] [type="submit"]').click(),
        );
        expect(new URL(page.url()).pathname).toBe('/app');
        await check('home', SEEDED_DATA);
        const row = await text('#payments tbody tr');
        expect(row).toContain('Masala tea');
        expect(row).toContain('₹450.00');
        expect(row).toContain(tr.t('app.payment_status.settled'));
        expect(row).toMatch(/\d{1,2} \S+ \d{4}, \d{1,2}:\d{2} (am|pm) IST/);
        expect(await text('main')).toContain(tr.t('app.home.refunds.none_why'));
        await page.goto(`${t.url}/app/developers`);
        await check('developers', SEEDED_DATA);
        const agents = await text('#agents');
        expect(agents).toContain('Chai Co');
        expect(agents).toContain(tr.t('app.role.seller'));
        expect(await text('#dev-protocol-keys')).toContain(tr.t('app.role.merchant'));
      });

      it('terms, privacy and the 404 page', async () => {
        await page.goto(`${t.url}/app/legal/terms`);
        await check('terms', []);
        expect(await text('h1')).toBe(tr.t('legal.terms.title'));
        expect(await page.title()).toBe(`${tr.t('legal.terms.title')} · ${tr.t('common.brand')}`);
        await page.goto(`${t.url}/app/legal/privacy`);
        await check('privacy', GRIEVANCE);
        expect(await text('h1')).toBe(tr.t('legal.privacy.title'));
        expect(await text('#grievance-officer')).toContain(GRIEVANCE[0]);
        await page.goto(`${t.url}/app/no-such-page`);
        await check('not-found', [], { status: 404 });
        expect(await text('h1')).toBe(tr.t('errors.heading.404'));
        expect(await text('[role="alert"]')).toBe(tr.t('errors.code.not_found'));
      });

      it('the switch turns this page into the other language, remembers it, and switches back', async () => {
        const other: PageLanguage = lang === 'en' ? 'hi' : 'en';
        const otherTr = translator(other);
        await page.goto(`${t.url}/app/developers`);
        expect(await text('h1')).toBe(tr.t('app.developers.title'));
        await clickAndWait(page, () => page.locator('[data-test="lang-switch"]').click());
        expect(new URL(page.url()).pathname).toBe('/app/developers');
        expect(await page.locator('html').getAttribute('lang')).toBe(otherTr.htmlLang);
        expect(await text('h1')).toBe(otherTr.t('app.developers.title'));
        await check(`switched-to-${other}`, SEEDED_DATA, {
          ...(other === 'hi' ? { hindi: { data: SEEDED_DATA } } : { hindi: undefined }),
        });
        await page.reload();
        expect(await page.locator('html').getAttribute('lang')).toBe(otherTr.htmlLang);
        expect(await text('h1')).toBe(otherTr.t('app.developers.title'));
        const cookies = await page.context().cookies(t.url);
        expect(cookies.find((c) => c.name === 'lang')?.value).toBe(other);
        await clickAndWait(page, () => page.locator('[data-test="lang-switch"]').click());
        expect(new URL(page.url()).pathname).toBe('/app/developers');
        expect(await page.locator('html').getAttribute('lang')).toBe(tr.htmlLang);
        expect(await text('h1')).toBe(tr.t('app.developers.title'));
        await page.reload();
        expect(await text('h1')).toBe(tr.t('app.developers.title'));
      });

      it('the switch works on a public page too (terms), not served from the cache', async () => {
        const otherTr = translator(lang === 'en' ? 'hi' : 'en');
        await page.goto(`${t.url}/app/legal/terms`);
        expect(await text('h1')).toBe(tr.t('legal.terms.title'));
        await clickAndWait(page, () => page.locator('[data-test="lang-switch"]').click());
        expect(new URL(page.url()).pathname).toBe('/app/legal/terms');
        expect(await text('h1')).toBe(otherTr.t('legal.terms.title'));
        await clickAndWait(page, () => page.locator('[data-test="lang-switch"]').click());
        expect(await text('h1')).toBe(tr.t('legal.terms.title'));
      });
    });
  });
});
