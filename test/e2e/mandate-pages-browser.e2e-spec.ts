import type { Page } from 'playwright-core';

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
  signInThroughForm,
  textOutsideDetails,
  VIEWPORT_NAMES,
} from '../support/browser';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

const RAW_ID = /\b(agt|mdt|cs|pi)_[A-Za-z0-9]+/;

/**
 * The mandate authorisation pages in a real browser (issue 24 items 1 and 2), at 390×844 and
 * 1280×800: a one-time mandate says who asks, who is paid, what is bought, how much, until when
 * (IST), what happens above ₹2,000 and how to revoke, with ids only under a collapsed "Details";
 * a recurring (AutoPay) mandate is authorised only through a confirmation step that keeps the
 * person's lowered maximum. Every page passes checkPage().
 */
describeInBrowser('mandate authorisation pages in a browser', () => {
  const b = browserHarness();
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  }, 30_000);
  afterAll(() => t?.close());

  const mandateRow = async (id: string) =>
    (
      await t.db.query<{ status: string; per_payment_cap_paise: string }[]>(
        `SELECT status, per_payment_cap_paise FROM mandates WHERE id = $1`,
        [id],
      )
    )[0];

  /** A one-time mandate as delegate_payment makes it: for an ACP checkout of 2 × tea and 1 × biscuits (₹925). */
  async function oneTimeMandate(ws: SeededWorkspace): Promise<string> {
    const token = await oneTimeMandateFor(t, ws, await openTeaCheckout(t, ws));
    expect(token.status).toBe('pending_authorisation');
    return token.mandate_id;
  }

  /** A ₹999/month AutoPay mandate proposed by the buyer agent. */
  async function recurringMandate(ws: SeededWorkspace): Promise<string> {
    const { mandateId, firstCharge } = await teaSubscriptionMandate(t, ws);
    // A first debit scheduled with the registration: authorised with the mandate (docs/recurring.md).
    expect(firstCharge).toMatchObject({ authorisation: 'with_registration', first_debit: true });
    return mandateId;
  }

  describe.each(VIEWPORT_NAMES)('at %s width', (viewport) => {
    let ws: SeededWorkspace;
    let page: Page;
    let oneTime: string;
    let recurring: string;

    beforeAll(async () => {
      page = b.page(viewport);
      ws = await seedWorkspace(t);
      oneTime = await oneTimeMandate(ws);
      recurring = await recurringMandate(ws);
      await signInThroughForm(page, `${t.url}/app/login`, ws.email, ws.password);
    }, 30_000);

    it('the one-time mandate says who asks, who is paid, what is bought, how much and until when', async () => {
      await page.goto(`${t.url}/app/mandates/${oneTime}/authorize`);
      await checkPage(page, { name: 'mandate-one-time' });
      const shown = await textOutsideDetails(page);
      expect(shown).toContain('Buyer assistant');
      expect(shown).toContain('Chai Co');
      const rows = await page.locator('#purchase tbody tr.item').allInnerTexts();
      expect(rows).toHaveLength(2);
      expect(rows[0]).toMatch(/Assam tea 1 kg[\s\S]*₹450\.00 each[\s\S]*\b2\b[\s\S]*₹900\.00/);
      expect(rows[1]).toMatch(/Ginger biscuits[\s\S]*₹25\.00 each[\s\S]*\b1\b[\s\S]*₹25\.00/);
      expect(await page.locator('#purchase tfoot').innerText()).toContain('₹925.00');
      expect(await page.locator('#term-cap').innerText()).toContain('at most ₹925.00');
      expect(await page.locator('#term-until').innerText()).toMatch(
        /^\w+day, \d{1,2} \w+ \d{4} at \d{1,2}:\d{2} (am|pm) IST \(in (2 days|\d+ h)\)$/,
      );
      expect(await page.locator('#term-approval').innerText()).toContain(
        'a person approves each such payment',
      );
      expect(shown).toContain('Above ₹2,000.00');
      expect(await page.locator('#term-revoke a').getAttribute('href')).toBe('/app/consent');
    });

    it('keeps every raw id inside the collapsed Details', async () => {
      await page.goto(`${t.url}/app/mandates/${oneTime}/authorize`);
      expect(await textOutsideDetails(page)).not.toMatch(RAW_ID);
      expect(await page.title()).not.toMatch(RAW_ID);
      const details = page.locator('details#mandate-details');
      expect(await details.getAttribute('open')).toBeNull();
      expect(await details.locator('summary').innerText()).toBe('Details');
      expect(await details.innerText()).not.toContain(oneTime);
      await details.locator('summary').click();
      expect(await details.innerText()).toContain(oneTime);
      expect(await details.innerText()).toMatch(/\bcs_/);
    });

    it('authorises the one-time mandate with one click', async () => {
      await page.goto(`${t.url}/app/mandates/${oneTime}/authorize`);
      await clickAndWait(page, () =>
        page.locator(`form[action="/app/mandates/${oneTime}/authorize"] [type="submit"]`).click(),
      );
      expect((await mandateRow(oneTime)).status).toBe('active');
      await checkPage(page, { name: 'mandate-one-time-authorised' });
    });

    it('the AutoPay mandate shows its cycle, amount, notice and how to cancel', async () => {
      await page.goto(`${t.url}/app/mandates/${recurring}/authorize`);
      await checkPage(page, { name: 'mandate-recurring' });
      const shown = await textOutsideDetails(page);
      expect(shown).not.toMatch(RAW_ID);
      expect(shown).toContain('Buyer assistant');
      expect(shown).toContain('Chai Co');
      expect(await page.locator('#term-cycle').innerText()).toBe('at most once a month');
      expect(await page.locator('#term-cap').innerText()).toContain(
        'up to ₹999.00 per debit, one debit a month',
      );
      expect(await page.locator('#term-notice').innerText()).toContain('24 hours ahead');
      expect(await page.locator('#term-revoke').innerText()).toContain('cancel AutoPay');
      expect(await page.locator('#term-until').innerText()).toMatch(/ IST /);
      expect(await page.locator('#first-debit h2').innerText()).toMatch(
        /^First debit ₹700\.00 on \d{1,2} \w{3} \d{4}, \d{1,2}:\d{2} [ap]m IST$/,
      );
    });

    it('one click does not authorise AutoPay: a confirmation step keeps the lowered maximum', async () => {
      await page.goto(`${t.url}/app/mandates/${recurring}/authorize`);
      const firstDebitAuthorisedBy = async () =>
        (
          await t.db.query<{ authorised_by: string | null }[]>(
            `SELECT authorised_by FROM recurring_charges WHERE mandate_id = $1 AND first_debit`,
            [recurring],
          )
        )[0].authorised_by;
      await page.locator('#max_per_debit').fill('750');
      await clickAndWait(page, () =>
        page.locator(`form[action="/app/mandates/${recurring}/authorize"] [type="submit"]`).click(),
      );
      expect(new URL(page.url()).pathname).toBe(`/app/mandates/${recurring}/authorize/confirm`);
      expect(await mandateRow(recurring)).toEqual({
        status: 'pending_authorisation',
        per_payment_cap_paise: '99900',
      });
      expect(await firstDebitAuthorisedBy()).toBeNull();
      await checkPage(page, { name: 'mandate-recurring-confirm' });
      const shown = await textOutsideDetails(page);
      expect(shown).not.toMatch(RAW_ID);
      expect(shown).toContain('up to ₹750.00 per debit, at most once a month');
      expect(shown).toContain('from ₹999.00 to ₹750.00');
      expect(shown).toContain('at least 24 hours ahead');
      expect(shown).toContain('cancel AutoPay at any time');
      expect(shown).toContain('above ₹2,000.00 waits for you');
      expect(await page.locator('#confirm-first-debit').innerText()).toMatch(
        /^First debit: ₹700\.00 on .+ IST \(First month, part\)\. Confirming also authorises this first debit\.$/,
      );

      await clickAndWait(page, () => page.getByRole('button', { name: 'Confirm AutoPay' }).click());
      expect(await mandateRow(recurring)).toEqual({
        status: 'active',
        per_payment_cap_paise: '75000',
      });
      expect(await firstDebitAuthorisedBy()).toBe(ws.personId);
      await checkPage(page, { name: 'mandate-recurring-authorised' });
      expect(await page.locator('#mandate-status').getAttribute('data-status')).toBe('active');
      expect(await page.locator('#term-cap').innerText()).toContain('up to ₹750.00 per debit');
    });

    it('warns on the confirmation step when the lowered maximum is below the first debit', async () => {
      const mandateId = await recurringMandate(ws);
      await page.goto(`${t.url}/app/mandates/${mandateId}/authorize`);
      await page.locator('#max_per_debit').fill('500');
      await clickAndWait(page, () =>
        page.locator(`form[action="/app/mandates/${mandateId}/authorize"] [type="submit"]`).click(),
      );
      expect(await page.locator('#confirm-first-debit-refused').innerText()).toContain(
        'Your maximum of ₹500.00 is below this first debit, so it will be refused.',
      );
      expect((await mandateRow(mandateId)).status).toBe('pending_authorisation');
    });
  });
});
