import type { Page } from 'playwright-core';
import request from 'supertest';

import { translator } from '../../src/common/i18n/catalogue';
import { payFreeFormQuote } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import {
  oneTimeMandateFor,
  openTeaCheckout,
  teaSubscriptionMandate,
} from '../factories/tea-checkout.factory';
import { startApp, TestApp } from '../support/app';
import {
  browserHarness,
  checkPage,
  clickAndWait,
  describeInBrowser,
  PAGE_LANGUAGES,
  signInThroughForm,
  textOutsideDetails,
  VIEWPORT_NAMES,
} from '../support/browser';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

const RAW_ID = /\b(agt|mdt|cs|pi|qt)_[A-Za-z0-9]{4,}/;

/**
 * Data this test makes, which a Hindi page shows as it is (docs/languages.md): names of the
 * person, workspace, agents, items, mandates and reasons.
 */
const DATA = [
  'Test Person',
  'Test workspace',
  'Chai Co',
  'Buyer assistant',
  'Assam tea 1 kg',
  'Ginger biscuits',
  'Electric kettle',
  'Tea subscription',
  'Tea box',
  'First month, part',
  'test mandate',
  'Cheaper plan',
];

/**
 * The mandate, approval, consent and AutoPay pages in English and Hindi (issue 24), at 390×844
 * and 1280×800: a one-time mandate's authorisation names the items and the seller; an AutoPay
 * mandate's says its cycle, amount, first debit, the 24-hour notice and how to cancel, then its
 * confirmation step; the approvals list and one approval above ₹2,000 with its confirmation
 * ("You are about to pay …"); the consent centre and the AutoPay page. Every page passes
 * checkPage with ids only under Details, and the Hindi ones have no English left.
 */
describeInBrowser('mandate, approval, consent and AutoPay pages in English and Hindi', () => {
  const b = browserHarness({ hindi: true });
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  }, 30_000);
  afterAll(() => t?.close());

  /** A one-time mandate as delegate_payment makes it: for an ACP checkout of 2 × tea and 1 × biscuits (₹925). */
  async function oneTimeMandate(ws: SeededWorkspace): Promise<string> {
    const token = await oneTimeMandateFor(t, ws, await openTeaCheckout(t, ws));
    return token.mandate_id;
  }

  /** A ₹999/month AutoPay mandate with a ₹700 first debit scheduled with its registration. */
  async function recurringMandate(ws: SeededWorkspace): Promise<string> {
    const { mandateId } = await teaSubscriptionMandate(t, ws);
    return mandateId;
  }

  describe.each(VIEWPORT_NAMES.flatMap((v) => PAGE_LANGUAGES.map((l) => [v, l] as const)))(
    'at %s width in %s',
    (viewport, lang) => {
      const tr = translator(lang);
      let ws: SeededWorkspace;
      let page: Page;
      let oneTime: string;
      let recurring: string;
      let approvalId: string;

      /** checkPage with ids only under Details; on the Hindi pages, no English left but data. */
      const check = (name: string) =>
        checkPage(page, {
          name: `languages-${name}-${lang}`,
          idsOnlyInDetails: true,
          ...(lang === 'hi' ? { hindi: { data: DATA } } : {}),
        });

      beforeAll(async () => {
        page = b.page(viewport, lang);
        ws = await seedWorkspace(t);
        oneTime = await oneTimeMandate(ws);
        recurring = await recurringMandate(ws);
        const standing = await createMandate(t, {
          workspaceId: ws.workspaceId,
          agentId: ws.buyer.id,
        });
        const paid = await payFreeFormQuote(t, {
          seller: ws.seller,
          buyer: ws.buyer,
          mandateId: standing,
          amountPaise: 250_000,
          name: 'Electric kettle',
        });
        expect(paid.intent.status).toBe('requires_approval');
        approvalId = paid.intent.approval_id!;
        await signInThroughForm(page, `${t.url}/app/login`, ws.email, ws.password);
      }, 30_000);

      it('the one-time mandate names the items and the seller; ids only under Details', async () => {
        await page.goto(`${t.url}/app/mandates/${oneTime}/authorize`);
        await check('mandate-one-time');
        const shown = await textOutsideDetails(page);
        for (const name of ['Assam tea 1 kg', 'Ginger biscuits', 'Chai Co', 'Buyer assistant']) {
          expect(shown).toContain(name);
        }
        expect(shown).not.toMatch(RAW_ID);
        expect(await page.locator('#purchase-h').innerText()).toBe(
          tr.t('mandates.authorize.purchase.heading'),
        );
        expect(await page.locator('#term-cap').innerText()).toContain('₹925.00');
        expect(await page.locator('#term-until').innerText()).toMatch(/ IST \(/);
        expect(await page.locator('#mandate-details summary').innerText()).toBe(
          tr.t('mandates.authorize.details.summary'),
        );
      });

      it('the AutoPay mandate says cycle, amount, first debit, notice and how to cancel, then confirms', async () => {
        await page.goto(`${t.url}/app/mandates/${recurring}/authorize`);
        await check('mandate-autopay');
        const monthly = tr.t('mandates.cycle.at_most_once', {
          per: tr.t('mandates.cycle.per.monthly'),
        });
        expect(await page.locator('#term-cycle').innerText()).toBe(monthly);
        expect(await page.locator('#term-cap').innerText()).toContain('₹999.00');
        expect(await page.locator('#first-debit h2').innerText()).toMatch(
          /₹700\.00.*\d{4}, \d{1,2}:\d{2} [ap]m IST/,
        );
        expect(await page.locator('#term-notice').innerText()).toContain('24');
        expect(await page.locator('#term-notice a').getAttribute('href')).toBe('/app/autopay');
        expect(await page.locator('#term-revoke a').getAttribute('href')).toBe('/app/consent');
        expect(await page.locator('#term-revoke').innerText()).toContain(
          tr.t('mandates.authorize.terms.cancel'),
        );

        await page.locator('#max_per_debit').fill('900');
        await clickAndWait(page, () =>
          page
            .locator(`form[action="/app/mandates/${recurring}/authorize"] [type="submit"]`)
            .click(),
        );
        expect(new URL(page.url()).pathname).toBe(`/app/mandates/${recurring}/authorize/confirm`);
        await check('mandate-autopay-confirm');
        const confirm = await page.locator('#mandate-confirm').innerText();
        expect(confirm).toContain('₹900.00');
        expect(confirm).toContain(monthly);
        expect(confirm).toContain(tr.t('mandates.confirm.notice'));
        expect(confirm).toContain(tr.t('mandates.confirm.cancel'));
        expect(await page.locator('#confirm-first-debit').innerText()).toContain('₹700.00');
        await clickAndWait(page, () =>
          page.getByRole('button', { name: tr.t('mandates.confirm.confirm') }).click(),
        );
        expect(await page.locator('#mandate-status').getAttribute('data-status')).toBe('active');
        await check('mandate-autopay-authorised');
      });

      it('the AutoPay page lists the first debit in words, the mandate under Details', async () => {
        await page.goto(`${t.url}/app/autopay`);
        await check('autopay');
        const card = page.locator('#upcoming article').first();
        expect(await card.locator('h3').innerText()).toContain('₹700.00');
        expect(await card.locator('h3').innerText()).toContain('Chai Co');
        expect(await card.locator('details.mandate-ref').getAttribute('open')).toBeNull();
        expect(await page.locator('[data-test="no-past"]').innerText()).toBe(
          tr.t('autopay.past.empty'),
        );
        // Opting out of one debit goes through its confirmation page, in words.
        await clickAndWait(page, () => card.locator('form button[type="submit"]').click());
        expect(new URL(page.url()).pathname).toMatch(/^\/app\/autopay\/charges\/[^/]+\/opt-out$/);
        await check('autopay-opt-out');
        expect(await page.locator('h1').innerText()).toBe(tr.t('autopay.cancel.title'));
      });

      it('an amendment shows old and new terms side by side, then its confirmation', async () => {
        const res = await request(t.url)
          .post(`/v1/pay/mandates/${recurring}/amendments`)
          .set('Authorization', `Bearer ${ws.buyer.credential}`)
          .send({ per_payment_cap_paise: 80_000, reason: 'Cheaper plan' })
          .expect(201);
        const path = `/app/mandates/${recurring}/amendments/${res.body.id as string}`;
        await page.goto(`${t.url}${path}`);
        await check('amendment');
        const row = page.locator('tr[data-term="per_payment_cap_paise"]');
        expect(await row.locator('th').innerText()).toBe(tr.t('mandates.amendment.row.per_debit'));
        expect(await row.locator('td.old').innerText()).toContain('₹900.00');
        expect(await row.locator('td.new').innerText()).toContain('₹800.00');
        expect(await textOutsideDetails(page)).not.toMatch(RAW_ID);
        await clickAndWait(page, () =>
          page.locator(`form[action="${path}/authorise"] [type="submit"]`).click(),
        );
        await check('amendment-confirm');
        expect(await page.locator('#confirm').innerText()).toContain(
          tr.t('mandates.amendment.confirm_authorise'),
        );
      });

      it('the approvals list, one approval and its confirmation above ₹2,000', async () => {
        await page.goto(`${t.url}/app/approvals`);
        await check('approvals');
        const card = page.locator(`[data-approval="${approvalId}"]`);
        expect(await card.innerText()).toContain('Electric kettle');
        expect(await card.innerText()).toContain('₹2,500.00');
        // The table's caption spans the card: never squeezed to one word a line on a phone.
        const caption = await card.locator('caption').boundingBox();
        const table = await card.locator('table').boundingBox();
        expect(caption!.width).toBeGreaterThan(table!.width * 0.9);
        expect(await card.locator('caption').innerText()).toBe(tr.t('approvals.card.caption'));
        expect(await card.locator('details.ids').getAttribute('open')).toBeNull();

        await page.goto(`${t.url}/app/approvals/${approvalId}`);
        await check('approval');
        await clickAndWait(page, () =>
          page
            .locator(`form[action="/app/approvals/${approvalId}/approve"] [type="submit"]`)
            .click(),
        );
        expect(new URL(page.url()).pathname).toBe(`/app/approvals/${approvalId}/confirm`);
        await check('approval-confirm');
        expect(await page.locator('#confirm-about').innerText()).toBe(
          tr.t('approvals.confirm.pay_to', { amount: '₹2,500.00', seller: 'Chai Co' }),
        );
        expect(await page.locator('#confirm-consequence').innerText()).toBe(
          tr.t('approvals.confirm.approve_text'),
        );
        await clickAndWait(page, () =>
          page.getByRole('button', { name: tr.t('approvals.confirm.confirm_approve') }).click(),
        );
        await check('approval-paid');

        await page.goto(`${t.url}/app/approvals`);
        expect(await page.locator('[data-test="none-waiting"]').innerText()).toBe(
          tr.t('approvals.none_waiting', { threshold: '₹2,000.00' }),
        );
        await check('approvals-none-waiting');
      });

      it('the consent centre: mandates by name, tokens and keys, ids only under Details', async () => {
        await page.goto(`${t.url}/app/consent`);
        await check('consent');
        const shown = await textOutsideDetails(page);
        expect(shown).toContain('Tea subscription');
        expect(shown).toContain(tr.t('mandates.status.active'));
        expect(shown).not.toMatch(RAW_ID);
        expect(await page.locator('#protocol-keys tbody tr').count()).toBe(2);
        // Revoking asks first, saying what stops.
        await clickAndWait(page, () =>
          page.locator(`form[action="/app/consent/mandates/${recurring}/revoke"] button`).click(),
        );
        await check('revoke-confirm');
        expect(await page.locator('h1').innerText()).toBe(tr.t('consent.revoke.heading'));
        expect(await page.locator('main').innerText()).toContain(
          tr.t('consent.revoke.mandate_consequence'),
        );
      });
    },
  );
});
