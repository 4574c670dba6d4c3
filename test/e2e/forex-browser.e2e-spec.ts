import type { Page } from 'playwright-core';

import { readyTravelFile, registerPartner, SeededPartner } from '../factories/forex.factory';
import { startApp, TestApp } from '../support/app';
import {
  browserHarness,
  checkPage,
  clickAndWait,
  describeInBrowser,
  newPage,
  signInThroughForm,
  VIEWPORT_NAMES,
} from '../support/browser';
import { seedWorkspace } from '../support/seed';

/**
 * The forex pages in a real browser at 1280×800 and 390×844: the person's declarations list and
 * declaration (tick, confirm), and the dealer desk (queue, file with checklist, quote and
 * documents, booking, the rates table). Every page passes checkPage(): security headers, no CSP
 * refusal, no horizontal overflow, no serious or critical axe-core violation.
 */
describeInBrowser('forex pages in a browser', () => {
  const b = browserHarness();
  let t: TestApp;
  let partner: SeededPartner;

  beforeAll(async () => {
    t = await startApp();
    partner = await registerPartner(t);
  }, 30_000);
  afterAll(() => t?.close());

  async function signInAs(page: Page, email: string, password: string): Promise<void> {
    await signInThroughForm(page, `${t.url}/app/login`, email, password);
  }

  describe.each(VIEWPORT_NAMES)('at %s width', (viewport) => {
    let person: Page;
    let dealer: Page;
    let fileId: string;

    beforeAll(async () => {
      person = b.page(viewport);
      dealer = await newPage(b.browser(), viewport);
      const ws = await seedWorkspace(t);
      const ready = await readyTravelFile(t, ws, partner.partnerId, [
        { currency: 'USD', amount: '1500.50', product: 'card' },
        { currency: 'JPY', amount: '20000', product: 'notes' },
      ]);
      fileId = ready.fileId;
      await ready.fx.submit(fileId).expect(200);
      await signInAs(person, ws.email, ws.password);
      await signInAs(dealer, partner.dealer.email, partner.dealer.password);
    }, 30_000);
    afterAll(() => dealer.context().close());

    it('the person reviews and confirms the declaration', async () => {
      await person.goto(`${t.url}/app/forex/declarations`);
      await checkPage(person, { name: `forex-declarations-${viewport}` });
      await clickAndWait(person, () =>
        person.locator(`a[href="/app/forex/declarations/${fileId}"]`).first().click(),
      );
      await checkPage(person, { name: `forex-declaration-${viewport}` });
      await person.locator('#confirm').check();
      await clickAndWait(person, () => person.locator('button.approve').click());
      await checkPage(person, { name: `forex-declared-${viewport}` });
      expect(await person.locator('.badge[data-status]').first().textContent()).toBe(
        'With the dealer',
      );
    });

    it('the dealer works the desk and books the file', async () => {
      await dealer.goto(`${t.url}/app/forex/desk`);
      await checkPage(dealer, { name: `forex-desk-${viewport}` });
      await clickAndWait(dealer, () =>
        dealer.locator(`a[href="/app/forex/desk/files/${fileId}"]`).first().click(),
      );
      await checkPage(dealer, { name: `forex-desk-file-${viewport}` });
      await dealer.locator('#deal-reference').fill(`DL-${viewport}`);
      await clickAndWait(dealer, () =>
        dealer.locator(`form[action="/app/forex/desk/files/${fileId}/book"] button`).click(),
      );
      await checkPage(dealer, { name: `forex-desk-booked-${viewport}` });
      expect(await dealer.locator('.deal-reference').textContent()).toBe(`DL-${viewport}`);
    });

    it('the dealer edits a rate', async () => {
      await dealer.goto(`${t.url}/app/forex/desk/rates`);
      await checkPage(dealer, { name: `forex-rates-${viewport}` });
      await dealer.locator('#THB-card-sell').fill('2.4800');
      await clickAndWait(dealer, () =>
        dealer.locator('form[action="/app/forex/desk/rates/THB"] button').click(),
      );
      await checkPage(dealer, { name: `forex-rates-saved-${viewport}` });
      expect(await dealer.locator('#THB-card-sell').inputValue()).toBe('2.4800');
    });
  });
});
