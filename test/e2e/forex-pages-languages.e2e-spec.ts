import type { Type } from '@nestjs/common';
import type { Page } from 'playwright-core';

import { translator } from '../../src/common/i18n/catalogue';
import { APP_CONFIG, AppConfig } from '../../src/config/app.config';
import { financialYearOf } from '../../src/forex/financial-year';
import { LRS_LIMIT_USD_CENTS } from '../../src/forex/forex-rules';
import {
  randomPan,
  readyTravelFile,
  registerPartner,
  SeededPartner,
} from '../factories/forex.factory';
import { startApp, TestApp } from '../support/app';
import {
  browserHarness,
  checkPage,
  clickAndWait,
  describeInBrowser,
  newPage,
  PAGE_LANGUAGES,
  signInThroughForm,
  VIEWPORT_NAMES,
} from '../support/browser';
import { seedWorkspace } from '../support/seed';

/** What each language must say (the catalogues' words, checked here as a person reads them). */
const WORDS = {
  en: {
    country: 'United Arab Emirates',
    behalf: 'You, Test Person, are declaring on behalf of the traveller Asha Rao, because',
    openingBehalf: 'I, Test Person, on behalf of Asha Rao, apply for the foreign exchange above',
    openingOwn: 'I, Test Person, apply for the foreign exchange above',
    purpose: 'S0306 is the RBI purpose code for Other travel (holidays, personal visits)',
    lrs: "LRS is the RBI's Liberalised Remittance Scheme",
    tcs: 'TCS is tax collected at source (Income-tax Act, section 206C(1G))',
    tcsPan: 'credits it to your PAN',
    waitingEmpty: 'Nothing waits for you.',
    othersEmpty: 'No other forex files yet.',
    queueEmpty: 'No files wait for you.',
    decidedEmpty: 'Nothing decided yet.',
    declaredOn: 'Confirmed by the person in the app on',
  },
  hi: {
    country: 'संयुक्त अरब अमीरात',
    behalf: 'आप, Test Person, यात्री Asha Rao की ओर से घोषणा कर रहे हैं, क्योंकि',
    openingBehalf: 'मैं, Test Person, Asha Rao की ओर से, ऊपर दी गई विदेशी मुद्रा',
    openingOwn: 'मैं, Test Person, ऊपर दी गई विदेशी मुद्रा',
    purpose: 'S0306 RBI का उद्देश्य कोड है: अन्य यात्रा (छुट्टियाँ, निजी मुलाक़ात)',
    lrs: 'LRS, RBI की उदारीकृत प्रेषण योजना है',
    tcs: 'TCS यानी स्रोत पर एकत्र कर (आयकर अधिनियम, धारा 206C(1G))',
    tcsPan: 'आपके PAN में जमा करता है',
    waitingEmpty: 'आपके लिए कुछ इंतज़ार में नहीं है।',
    othersEmpty: 'अभी कोई और विदेशी मुद्रा फ़ाइल नहीं।',
    queueEmpty: 'कोई फ़ाइल आपका इंतज़ार नहीं कर रही।',
    decidedEmpty: 'अभी किसी फ़ाइल पर फ़ैसला नहीं हुआ।',
    declaredOn: 'व्यक्ति ने ऐप में',
  },
} as const;

const ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
/** "26 Nov 2026, 1:45 am IST" / "26 नव॰ 2026, 1:45 am IST". */
const IST_WORDS = /\d{1,2} \S+ \d{4}, \d{1,2}:\d{2} (am|pm) IST/;

/**
 * The forex pages in English and Hindi at 390×844 and 1280×800 (issue 24; docs/languages.md): the
 * person's declarations list (empty, then with a file), a declaration (declared on behalf of the
 * traveller, and in the person's own name), the dealer desk (empty, then with the declared file),
 * a dealer file before and after booking, and the rates. Every page passes checkPage with ids
 * only in Details and, in Hindi, no English left but the data this test made. Countries by name,
 * times IST in words, the declarant named, and S0306 / TCS / LRS explained in plain words with the
 * configured values.
 */
describeInBrowser('forex pages in English and Hindi', () => {
  const b = browserHarness({ hindi: true });
  let t: TestApp;
  let partner: SeededPartner;
  let emptyPartner: SeededPartner;
  let partnerData: string[];
  let config: AppConfig;

  beforeAll(async () => {
    t = await startApp();
    partner = await registerPartner(t);
    emptyPartner = await registerPartner(t);
    config = t.get(APP_CONFIG as unknown as Type<AppConfig>);
    const rows = await t.db.query<{ name: string; licence_number: string }[]>(
      `SELECT name, licence_number FROM forex_partners WHERE id = ANY($1)`,
      [[partner.partnerId, emptyPartner.partnerId]],
    );
    partnerData = rows.flatMap((r) => [r.name, r.licence_number]);
  }, 30_000);
  afterAll(() => t?.close());

  async function signInAs(page: Page, email: string, password: string): Promise<void> {
    await signInThroughForm(page, `${t.url}/app/login`, email, password);
    // The page after sign-in finishes its loads (the favicon) before the test moves on, so a
    // load cut short by the next navigation is not reported against the next page checked.
    await page.waitForLoadState('networkidle');
  }

  const text = async (page: Page, selector = 'main') =>
    (await page.locator(selector).first().innerText()).replace(/\s+/g, ' ');

  describe.each(VIEWPORT_NAMES)('at %s width', (viewport) => {
    describe.each(PAGE_LANGUAGES)('in %s', (lang) => {
      const words = WORDS[lang];
      const tr = translator(lang);
      let person: Page;
      let dealer: Page;
      let pan: string;
      let fileId: string;
      let ownFileId: string;
      let ws: Awaited<ReturnType<typeof seedWorkspace>>;

      /** checkPage with ids only in Details; in Hindi, only this test's data may stay in Latin. */
      const check = (page: Page, name: string, status = 200) =>
        checkPage(page, {
          name: `forex-${lang}-${name}-${viewport}`,
          status,
          idsOnlyInDetails: true,
          ...(lang === 'hi'
            ? {
                hindi: {
                  data: [
                    'Test Person',
                    'Test workspace',
                    'Asha Rao',
                    'Dee Dealer',
                    ...partnerData,
                    `XXXXX${pan.slice(5)}`,
                    `DL-${viewport}`,
                    // Currency codes, as amounts are shown (USD 1,500.50; the rates' headings).
                    ...['USD', 'EUR', 'GBP', 'AED', 'SGD', 'JPY', 'THB'],
                    // docs/languages.md: Hindi times read "25 नव॰ 2026, 9:27 pm IST".
                    'am',
                    'pm',
                  ],
                },
              }
            : {}),
        });

      beforeAll(async () => {
        person = b.page(viewport, lang);
        dealer = await newPage(b.browser(), viewport, lang);
        ws = await seedWorkspace(t);
        pan = randomPan();
        await signInAs(person, ws.email, ws.password);
      }, 30_000);
      afterAll(() => dealer.context().close());

      it('the declarations list says what will appear there while it is empty', async () => {
        await person.goto(`${t.url}/app/forex/declarations`);
        await check(person, 'declarations-empty');
        const main = await text(person);
        expect(main).toContain(words.waitingEmpty);
        expect(main).toContain(words.othersEmpty);
      });

      it('the person reads the declaration in words and declares on behalf of the traveller', async () => {
        const ready = await readyTravelFile(
          t,
          ws,
          partner.partnerId,
          [
            { currency: 'USD', amount: '1500.50', product: 'card' },
            { currency: 'JPY', amount: '20000', product: 'notes' },
          ],
          { pan },
        );
        fileId = ready.fileId;
        await ready.fx.submit(fileId).expect(200);
        // A second file whose traveller is the person: declared in the person's own name.
        const own = await readyTravelFile(t, ws, partner.partnerId, undefined, {
          pan,
          traveller_name: 'Test Person',
        });
        ownFileId = own.fileId;
        await own.fx.submit(ownFileId).expect(200);

        await person.goto(`${t.url}/app/forex/declarations`);
        await check(person, 'declarations');
        const card = await text(person, `article[data-file="${fileId}"]`);
        expect(card).toContain(words.country);
        expect(card).toMatch(IST_WORDS);
        expect(card).not.toMatch(ISO);
        expect(card).not.toMatch(/\bAE\b/);

        await person.goto(`${t.url}/app/forex/declarations/${fileId}`);
        await check(person, 'declaration');
        const row = (
          await t.db.query<{ declaration_due_at: Date; departure_date: string }[]>(
            `SELECT declaration_due_at, departure_date::text FROM forex_files WHERE id = $1`,
            [fileId],
          )
        )[0];
        expect(await person.title()).toContain(words.country);
        expect(await text(person, '.destination')).toBe(words.country);
        expect(await text(person, '.travel-dates')).toContain(tr.istDate(row.departure_date));
        const declaration = await text(person, '.declaration');
        expect(declaration).toContain(words.behalf);
        expect(declaration).toContain(words.openingBehalf);
        expect(declaration).toContain(tr.ist(row.declaration_due_at));

        // The plain words beside S0306, TCS and LRS, with the configured values.
        for (const summary of await person.locator('details.explain > summary').all()) {
          await summary.click();
        }
        const explained = await text(person, 'main');
        expect(explained).toContain(words.purpose);
        expect(explained).toContain(words.lrs);
        expect(explained).toContain(`USD ${(LRS_LIMIT_USD_CENTS / 100).toLocaleString('en-US')}`);
        expect(explained).toContain(words.tcs);
        expect(explained).toContain(words.tcsPan);
        const fy = financialYearOf(t.clock.now());
        expect(explained).toContain(tr.rupees(config.forexTcsTable[fy].thresholdPaise));
        await check(person, 'declaration-explained');

        await person.locator('#confirm').check();
        await clickAndWait(person, () => person.locator('button.approve').click());
        await check(person, 'declared');
        const declaredAt = (
          await t.db.query<{ declared_at: Date; declared_by: string }[]>(
            `SELECT declared_at, declared_by FROM forex_files WHERE id = $1`,
            [fileId],
          )
        )[0];
        // The declarant is the signed-in person, as the page said.
        expect(declaredAt.declared_by).toBe(ws.personId);
        expect(await text(person)).toContain(tr.ist(declaredAt.declared_at));
      });

      it('a file whose traveller is the person is declared in the person’s own name', async () => {
        await person.goto(`${t.url}/app/forex/declarations/${ownFileId}`);
        const declaration = await text(person, '.declaration');
        expect(declaration).toContain(words.openingOwn);
        expect(declaration).not.toContain(words.behalf);
        expect(await person.locator('.declaration .behalf').count()).toBe(0);
      });

      it('the dealer desk says what will appear there while it is empty', async () => {
        const empty = await newPage(b.browser(), viewport, lang);
        try {
          await signInAs(empty, emptyPartner.dealer.email, emptyPartner.dealer.password);
          await empty.goto(`${t.url}/app/forex/desk`);
          await check(empty, 'desk-empty');
          const main = await text(empty);
          expect(main).toContain(words.queueEmpty);
          expect(main).toContain(words.decidedEmpty);
        } finally {
          await empty.context().close();
        }
      });

      it('the dealer reads the desk and the file in words, and books it', async () => {
        await signInAs(dealer, partner.dealer.email, partner.dealer.password);
        await dealer.goto(`${t.url}/app/forex/desk`);
        await check(dealer, 'desk');
        const queued = await text(dealer, `tr[data-file="${fileId}"]`);
        expect(queued).toContain(words.country);
        expect(queued).toMatch(IST_WORDS);

        await clickAndWait(dealer, () =>
          dealer.locator(`a[href="/app/forex/desk/files/${fileId}"]`).first().click(),
        );
        await check(dealer, 'desk-file');
        const declared = await text(dealer, 'li[data-key="declaration"]');
        expect(declared).toContain(words.declaredOn);
        expect(declared).toMatch(IST_WORDS);
        expect(declared).not.toMatch(ISO);
        expect(await text(dealer, '.destination')).toBe(words.country);

        await dealer.locator('#deal-reference').fill(`DL-${viewport}`);
        await clickAndWait(dealer, () =>
          dealer.locator(`form[action="/app/forex/desk/files/${fileId}/book"] button`).click(),
        );
        await check(dealer, 'desk-booked');
        expect(await text(dealer, '.dealer-notes')).toMatch(IST_WORDS);
        expect(await dealer.locator('.deal-reference').textContent()).toBe(`DL-${viewport}`);
      });

      it('the dealer reads the rates in words', async () => {
        await dealer.goto(`${t.url}/app/forex/desk/rates`);
        await check(dealer, 'rates');
        const jpy = await text(dealer, 'section[data-currency="JPY"]');
        expect(jpy).toContain(tr.t('forex.rates.per_100'));
        expect(jpy).toMatch(IST_WORDS);

        // A refused rate is said in the page's language, next to its currency.
        await dealer.locator('#USD-notes-buy').fill('99.0000');
        await clickAndWait(dealer, () =>
          dealer.locator('form[action="/app/forex/desk/rates/USD"] button').click(),
        );
        await check(dealer, 'rates-refused', 400);
        expect(await text(dealer, 'section[data-currency="USD"] [role="alert"]')).toBe(
          tr.t('forex.errors.buy_above_sell'),
        );
      });
    });
  });
});
