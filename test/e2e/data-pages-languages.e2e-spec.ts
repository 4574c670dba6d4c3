import type { Page } from 'playwright-core';

import { BreachRegisterService } from '../../src/breaches/breach-register.service';
import { OperatorsService } from '../../src/ops/operators.service';
import type { SignedInPerson } from '../../src/web/signed-in-person';
import { payFreeFormQuote } from '../factories/intent.factory';
import { insertMandate } from '../factories/payment-fixtures';
import { startApp, TestApp } from '../support/app';
import {
  browserHarness,
  checkPage,
  clickAndWait,
  describeInBrowser,
  PAGE_LANGUAGES,
  PageLanguage,
  signInThroughForm,
  VIEWPORT_NAMES,
  ViewportName,
} from '../support/browser';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

const HOUR = 3600_000;
const IST_WORDS = /\d{1,2} \S+ \d{4}, \d{1,2}:\d{2} [ap]m IST/;

/** The facts an operator records about a breach: the operator's own words, data on the page. */
const BREACH = {
  summary: 'A copy of the sign-in database was left readable on a public file share.',
  extent: 'About 1,200 accounts; the copy was downloaded twice.',
  location: 'Backup storage bucket, Mumbai region',
  dataCategories: 'Your name, email address and the hash of your password.',
  likelyConsequences: 'Someone may send you emails pretending to be us.',
  mitigation: 'We closed the share, reset every password and are watching for misuse.',
  personActions: 'Choose a new password when you next sign in; ignore emails asking for it.',
};

/** What the test made and a person reads as it is: names, items, the operator's facts. */
const DATA = [
  'Test workspace',
  'Test Person',
  'Chai Co',
  'Buyer assistant',
  'checkout test mandate',
  'Assam tea 1 kg',
  'Grievance Officer (sandbox)',
  ...Object.values(BREACH),
];

const COMBOS: [ViewportName, PageLanguage][] = VIEWPORT_NAMES.flatMap((v) =>
  PAGE_LANGUAGES.map((l): [ViewportName, PageLanguage] => [v, l]),
);

/** The words each language must show (from locales/<lang>/{data,notices,receipts}.json). */
const WORDS = {
  en: {
    yourData: 'Your data',
    paid: 'You paid ₹450.00',
    method: 'UPI Reserve Pay mandate',
    perPayment: 'up to ₹10,000.00 per payment',
    noForex: 'No forex files.',
    erase: 'Erase your data',
    cannotUndo: 'This cannot be undone.',
    erased: 'Your data was erased',
    kept: 'Payments and their signed receipts',
    notice: 'A problem with your personal data',
    whatYouCanDo: 'What you can do',
    noNotices: 'We have sent you no notices.',
    receipt: 'Receipt',
    receiptTitle: 'Receipt from Chai Co',
    item: '1 × Assam tea 1 kg at ₹450.00: ₹450.00',
    methodOnReceipt: "UPI Reserve Pay mandate, paid by the buyer's agent",
    step: 'Step 1: Payment settled',
    verify: 'Verify this receipt',
  },
  hi: {
    yourData: 'आपका डेटा',
    paid: 'आपने ₹450.00 का भुगतान किया',
    method: 'UPI Reserve Pay मैंडेट',
    perPayment: 'हर भुगतान पर अधिकतम ₹10,000.00',
    noForex: 'कोई विदेशी मुद्रा फ़ाइल नहीं।',
    erase: 'अपना डेटा मिटाएँ',
    cannotUndo: 'यह वापस नहीं हो सकता।',
    erased: 'आपका डेटा मिटा दिया गया',
    kept: 'भुगतान और उनकी हस्ताक्षरित रसीदें',
    notice: 'आपके निजी डेटा से जुड़ी एक समस्या',
    whatYouCanDo: 'आप क्या कर सकते हैं',
    noNotices: 'हमने आपको कोई सूचना नहीं भेजी है।',
    receipt: 'रसीद',
    receiptTitle: 'Chai Co की रसीद',
    item: '1 × Assam tea 1 kg (₹450.00 प्रति नग): ₹450.00',
    methodOnReceipt: 'UPI Reserve Pay मैंडेट, खरीदार के एजेंट ने भुगतान किया',
    step: 'चरण 1: भुगतान पूरा हुआ',
    verify: 'इस रसीद की जाँच करें',
  },
} as const;

/**
 * "Your data", its erasure confirmation and the erased page, the breach notices (one notice, and
 * none) and a receipt after a sandbox payment, in a real browser at 390×844 and 1280×800, in
 * English and in Hindi (issue 24; docs/languages.md): every page passes checkPage with ids only
 * under Details and, in Hindi, no English left but the data this test made; the key facts a
 * person must read are there in the page's language, times in IST words, the mandate said in
 * words and never masked like a UPI ID.
 */
describeInBrowser('data pages in English and Hindi', () => {
  const b = browserHarness({ hindi: true });
  let t: TestApp;
  let ws: SeededWorkspace;
  let quiet: SeededWorkspace;
  let receiptId: string;

  /** A person with a mandate and one settled ₹450 payment (a receipt) in their workspace. */
  async function personWithPayment(): Promise<{ ws: SeededWorkspace; receiptId: string }> {
    const w = await seedWorkspace(t);
    const mandateId = await insertMandate(t, w, { payeeAgentIds: [w.seller.id] });
    const paid = await payFreeFormQuote(t, {
      seller: w.seller,
      buyer: w.buyer,
      mandateId,
      amountPaise: 45_000,
      name: 'Assam tea 1 kg',
    });
    expect(paid.intent.status).toBe('settled');
    return { ws: w, receiptId: paid.intent.receipt_id! };
  }

  beforeAll(async () => {
    t = await startApp();
    ({ ws, receiptId } = await personWithPayment());
    quiet = await seedWorkspace(t);
    const issued = await t
      .get(OperatorsService)
      .ensureOperator(
        { email: 'privacy-langs@ops.test', name: 'Privacy', workspaceName: 'Operators' },
        { type: 'system', id: 'test' },
      );
    const operator = {
      personId: issued.personId,
      workspaceId: issued.workspaceId,
    } as SignedInPerson;
    const breaches = t.get(BreachRegisterService);
    const awareAt = new Date(t.clock.now().getTime() - HOUR);
    const breach = await breaches.record(operator, {
      ...BREACH,
      factsAndReasons: null,
      responsibleFindings: null,
      remedialMeasures: null,
      occurredAt: new Date(awareAt.getTime() - 2 * HOUR),
      awareAt,
      scope: { person_ids: [ws.personId], workspace_ids: [] },
    });
    await breaches.sendNotices(operator, breach.id);
  }, 60_000);
  afterAll(() => t?.close());

  /** Signs `who` in on this page's context (any earlier session is dropped) and opens `path`. */
  async function signedIn(page: Page, who: SeededWorkspace, path: string): Promise<void> {
    await page.context().clearCookies();
    await signInThroughForm(
      page,
      `${t.url}/app/login?next=${encodeURIComponent(path)}`,
      who.email,
      who.password,
    );
    expect(new URL(page.url()).pathname).toBe(path);
  }

  const check = (page: Page, name: string, lang: PageLanguage) =>
    checkPage(page, {
      name: `${name}-${lang}`,
      idsOnlyInDetails: true,
      ...(lang === 'hi' ? { hindi: { data: DATA } } : {}),
    });

  const text = async (page: Page, selector: string) =>
    ((await page.locator(selector).textContent()) ?? '').replace(/\s+/g, ' ');

  it.each(COMBOS)(
    '"Your data" and its erasure confirmation at %s in %s',
    async (viewport, lang) => {
      const w = WORDS[lang];
      const page = b.page(viewport, lang);
      await signedIn(page, ws, '/app/your-data');
      await check(page, 'your-data', lang);
      await expect(page.locator('h1').textContent()).resolves.toBe(w.yourData);
      expect(await page.title()).toContain(w.yourData);
      const payments = await text(page, '#payments');
      expect(payments).toContain(w.paid);
      expect(payments).toMatch(IST_WORDS);
      await expect(page.locator('#payments a[href^="/app/receipts/"]').count()).resolves.toBe(1);
      const mandates = await text(page, '#mandates');
      expect(mandates).toContain(w.method);
      expect(mandates).toContain(w.perPayment);
      expect(mandates).not.toContain('····');
      await expect(text(page, '#no-forex')).resolves.toContain(w.noForex);
      await expect(text(page, '#grievance')).resolves.toContain('30');
      await expect(text(page, '#holds')).resolves.toContain(w.kept);
      // Consent ids (the protocol keys the workspace was seeded with) only under a closed Details.
      await expect(page.locator('#consents details[open]').count()).resolves.toBe(0);
      await expect(page.locator('#consents details code').first().textContent()).resolves.toMatch(
        /^\w+_/,
      );

      await clickAndWait(page, () => page.locator('a[href="/app/your-data/erase"]').click());
      await check(page, 'your-data-erase', lang);
      await expect(page.locator('h1').textContent()).resolves.toBe(w.erase);
      await expect(page.locator('main strong').first().textContent()).resolves.toBe(w.cannotUndo);
      await expect(text(page, '#holds')).resolves.toContain(w.kept);
    },
    60_000,
  );

  it.each(COMBOS)(
    'erasing a separate person shows what is kept at %s in %s',
    async (viewport, lang) => {
      const w = WORDS[lang];
      const page = b.page(viewport, lang);
      const { ws: other } = await personWithPayment();
      await signedIn(page, other, '/app/your-data/erase');
      await page.locator('input[name="understood"]').check();
      await clickAndWait(page, () => page.locator('#erase-form [type="submit"]').click());
      await check(page, 'your-data-erased', lang);
      await expect(page.locator('h1').textContent()).resolves.toBe(w.erased);
      const kept = await text(page, '#kept');
      expect(kept).toContain(w.kept);
      expect(await text(page, 'main')).toMatch(IST_WORDS);
    },
    60_000,
  );

  it.each(COMBOS)(
    'breach notices, one and none, at %s in %s',
    async (viewport, lang) => {
      const w = WORDS[lang];
      const page = b.page(viewport, lang);
      await signedIn(page, ws, '/app/notices');
      await check(page, 'notices', lang);
      const notice = await text(page, 'article[data-notice]');
      expect(notice).toContain(w.notice);
      expect(notice).toContain(w.whatYouCanDo);
      expect(notice).toContain(BREACH.personActions);
      expect(notice).toContain('grievance@example.invalid');
      expect(notice).toMatch(IST_WORDS);

      await signedIn(page, quiet, '/app/notices');
      await check(page, 'notices-none', lang);
      await expect(text(page, '#no-notices')).resolves.toContain(w.noNotices);
    },
    60_000,
  );

  it.each(COMBOS)(
    'a receipt after a sandbox payment at %s in %s',
    async (viewport, lang) => {
      const w = WORDS[lang];
      const page = b.page(viewport, lang);
      await signedIn(page, ws, `/app/receipts/${receiptId}`);
      await check(page, 'receipt', lang);
      await expect(page.locator('h1').textContent()).resolves.toBe(w.receipt);
      expect(await page.title()).toContain(w.receiptTitle);
      await expect(text(page, '#receipt-seller')).resolves.toBe('Chai Co');
      await expect(text(page, '#receipt-total')).resolves.toContain('₹450.00');
      await expect(text(page, '#receipt-paid-at')).resolves.toMatch(IST_WORDS);
      const method = await text(page, '#receipt-method');
      expect(method).toContain(w.methodOnReceipt);
      expect(method).not.toContain('····');
      await expect(text(page, '#receipt-items')).resolves.toContain(w.item);
      // The ids are there, under a closed Details.
      await expect(page.locator('#receipt-details').getAttribute('open')).resolves.toBeNull();
      await expect(text(page, '#receipt-id')).resolves.toBe(receiptId);
      await expect(text(page, '#verify-h')).resolves.toBe(w.verify);
      await expect(text(page, '.receipt-entries li strong')).resolves.toBe(w.step);
    },
    60_000,
  );
});
