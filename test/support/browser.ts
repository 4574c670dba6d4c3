import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Browser, BrowserContext, chromium, Page, Response } from 'playwright-core';

/**
 * Real-browser harness: Debian's Chromium driven by playwright-core (which never downloads a
 * browser). One browser per test file, one context per viewport, reused across the file's tests.
 *
 *   const b = browserHarness();            // launches in beforeAll, closes in afterAll
 *   const page = b.page('mobile');
 *   await page.goto(url);
 *   await checkPage(page, 'approvals');    // overflow, axe, security headers, CSP, screenshot
 *
 * Without a Chromium, describeInBrowser() registers one failing test whose message is one line
 * saying how to install it.
 */

export const CHROMIUM_DEFAULT = '/usr/bin/chromium';

export const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  mobile: { width: 390, height: 844 },
} as const;
export type ViewportName = keyof typeof VIEWPORTS;
export const VIEWPORT_NAMES = Object.keys(VIEWPORTS) as ViewportName[];

/** Where screenshots go (git-ignored: .gitignore has .tmp/). */
export const SCREENSHOT_DIR = join(__dirname, '..', '..', '.tmp', 'screenshots');

const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The Chromium to drive: $CHROMIUM_PATH, else /usr/bin/chromium. */
export function chromiumPath(): string {
  return process.env.CHROMIUM_PATH || CHROMIUM_DEFAULT;
}

/** null when Chromium is there, else the one-line reason the browser tests cannot run. */
export function chromiumMissing(): string | null {
  const path = chromiumPath();
  return existsSync(path)
    ? null
    : `Chromium not found at ${path}: apt-get install -y chromium (or set CHROMIUM_PATH)`;
}

/** An error jest prints as its message alone (no stack): the install hint is the whole story. */
function oneLineError(message: string): Error {
  const err = new Error(message);
  err.stack = message;
  return err;
}

/**
 * describe() when Chromium is available; otherwise a single failing test saying how to get it,
 * so a machine without Chromium fails the browser suite with one line instead of a wall of
 * beforeAll failures.
 */
export function describeInBrowser(name: string, fn: () => void): void {
  const missing = chromiumMissing();
  if (missing) {
    describe(name, () => {
      it('needs Chromium', () => {
        throw oneLineError(missing);
      });
    });
    return;
  }
  describe(name, fn);
}

/** Launches Chromium with a fresh, temporary user-data dir (playwright's, removed on close). */
export async function launchBrowser(): Promise<Browser> {
  const missing = chromiumMissing();
  if (missing) {
    throw oneLineError(missing);
  }
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: LAUNCH_ARGS,
    timeout: 20_000,
  });
}

interface PageState {
  /** The last main-frame document response (after redirects: the page shown). */
  document: Response | null;
  /** Console errors (CSP refusals land here), page errors and failed same-origin loads. */
  problems: string[];
}

const states = new WeakMap<Page, PageState>();

/** The languages of the pages (src/common/i18n/language.ts); a context asks for one by locale. */
export type PageLanguage = 'en' | 'hi';
export const PAGE_LANGUAGES: PageLanguage[] = ['en', 'hi'];

/**
 * A new page in a fresh context of the given viewport, watched for the checks of checkPage. Its
 * browser asks for the language by Accept-Language (en-IN or hi-IN), as a person's phone does.
 */
export async function newPage(
  browser: Browser,
  viewport: ViewportName,
  lang: PageLanguage = 'en',
): Promise<Page> {
  const context: BrowserContext = await browser.newContext({
    viewport: VIEWPORTS[viewport],
    deviceScaleFactor: 1,
    locale: lang === 'hi' ? 'hi-IN' : 'en-IN',
    // The CSP stays enforced: a blocked inline style or script is a failure (see checkPage).
    bypassCSP: false,
  });
  context.setDefaultTimeout(10_000);
  context.setDefaultNavigationTimeout(10_000);
  const page = await context.newPage();
  const state: PageState = { document: null, problems: [] };
  states.set(page, state);
  page.on('response', (res) => {
    if (res.request().isNavigationRequest() && res.frame() === page.mainFrame()) {
      state.document = res;
    } else if (res.status() >= 400) {
      state.problems.push(`${res.status()} ${res.request().method()} ${res.url()}`);
    }
  });
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !/^Failed to load resource/.test(msg.text())) {
      state.problems.push(`console: ${msg.text()}`);
    }
  });
  page.on('pageerror', (err) => state.problems.push(`page error: ${err.message}`));
  page.on('requestfailed', (req) => {
    const why = req.failure()?.errorText ?? '?';
    // Chromium cancels a favicon fetch still in flight when the page moves on (a form post, the
    // next test's navigation): not a broken asset (browser-pay checks that the icon loads).
    if (why === 'net::ERR_ABORTED' && new URL(req.url()).pathname.endsWith('/favicon.svg')) {
      return;
    }
    state.problems.push(`request failed: ${req.url()} (${why})`);
  });
  return page;
}

/**
 * One browser per test file, one page per viewport (and per language with `{ hindi: true }`),
 * all reused across the file's tests.
 */
export function browserHarness(opts: { hindi?: boolean } = {}): {
  browser(): Browser;
  page(viewport: ViewportName, lang?: PageLanguage): Page;
} {
  let browser: Browser | null = null;
  const pages = new Map<string, Page>();
  const languages: PageLanguage[] = opts.hindi ? PAGE_LANGUAGES : ['en'];
  beforeAll(async () => {
    browser = await launchBrowser();
    for (const v of VIEWPORT_NAMES) {
      for (const l of languages) {
        pages.set(`${v}:${l}`, await newPage(browser, v, l));
      }
    }
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
  });
  return {
    browser: () => browser!,
    page: (v, l = 'en') => {
      const p = pages.get(`${v}:${l}`);
      if (!p) {
        throw new Error(`no ${l} page: browserHarness({ hindi: true }) makes the Hindi ones`);
      }
      return p;
    },
  };
}

/** Headers every page must carry (src/common/http/security-headers.ts). */
export function securityHeaderProblems(headers: Record<string, string>): string[] {
  const problems: string[] = [];
  const csp = headers['content-security-policy'] ?? '';
  const directives = new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((p) => p[0] !== '')
      .map(([n, ...v]) => [n, v.join(' ')]),
  );
  if (!csp) {
    problems.push('no Content-Security-Policy');
  } else {
    // 'self' (app pages, src/common/http/security-headers.ts) or stricter 'none' (the hosted pay page).
    if (!["'self'", "'none'"].includes(directives.get('default-src') ?? '')) {
      problems.push(
        `CSP default-src is "${directives.get('default-src') ?? ''}", want 'self' or 'none'`,
      );
    }
    if (directives.get('frame-ancestors') !== "'none'") {
      problems.push(
        `CSP frame-ancestors is "${directives.get('frame-ancestors') ?? ''}", want 'none'`,
      );
    }
    for (const d of ['script-src', 'style-src']) {
      if ((directives.get(d) ?? '').includes('unsafe-')) {
        problems.push(`CSP ${d} allows "${directives.get(d) ?? ''}"`);
      }
    }
  }
  if (headers['x-content-type-options'] !== 'nosniff') {
    problems.push(
      `X-Content-Type-Options is "${headers['x-content-type-options'] ?? ''}", want nosniff`,
    );
  }
  if (headers['referrer-policy'] !== 'no-referrer') {
    problems.push(`Referrer-Policy is "${headers['referrer-policy'] ?? ''}", want no-referrer`);
  }
  return problems;
}

/*
 * The functions handed to page.evaluate run inside the page. tsconfig has no DOM lib (server code
 * must not reach for window or document), so they see only this much of the DOM, in this module.
 */
interface PageElement {
  id: string;
  className: unknown;
  tagName: string;
  textContent: string | null;
  getBoundingClientRect(): { right: number; width: number };
}
declare const window: { innerWidth: number; axe?: unknown };
declare const document: {
  documentElement: { scrollWidth: number };
  body: { querySelectorAll(selector: string): ArrayLike<PageElement> };
  querySelectorAll(selector: string): ArrayLike<{ sheet: unknown }>;
};

let axeSource: string | null = null;

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  helpUrl: string;
  nodes: { target: unknown[]; html: string; failureSummary?: string }[];
}

/**
 * Runs axe-core in the page. Its source goes in through page.evaluate (DevTools evaluation,
 * which the page's CSP does not govern), so the CSP stays enforced for everything else and an
 * inline style or script the app itself needs still shows up as a failure.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) {
    axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
    await page.evaluate(axeSource);
  }
  return page.evaluate(async () => {
    const axe = window.axe as {
      run(ctx: unknown, opts: object): Promise<{ violations: AxeViolation[] }>;
    };
    const res = await axe.run(document, { resultTypes: ['violations'] });
    return res.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      helpUrl: v.helpUrl,
      nodes: v.nodes.map((n) => ({
        target: n.target,
        html: n.html,
        failureSummary: n.failureSummary,
      })),
    }));
  });
}

/** A readable list of serious and critical violations, or '' when there are none. */
export function formatViolations(violations: AxeViolation[]): string {
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => {
      const nodes = v.nodes
        .slice(0, 5)
        .map(
          (n) =>
            `    - ${JSON.stringify(n.target)} ${n.html.slice(0, 160)}\n      ${(n.failureSummary ?? '').replace(/\n\s*/g, ' ').slice(0, 300)}`,
        )
        .join('\n');
      const more = v.nodes.length > 5 ? `\n    … and ${v.nodes.length - 5} more` : '';
      return `  [${v.impact}] ${v.id}: ${v.help} (${v.nodes.length} node${v.nodes.length === 1 ? '' : 's'}) ${v.helpUrl}\n${nodes}${more}`;
    })
    .join('\n');
}

/** Elements sticking out to the right of the viewport, widest first: what to fix. */
async function overflowCulprits(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const limit = window.innerWidth;
    const out: { what: string; right: number }[] = [];
    for (const el of Array.from(document.body.querySelectorAll('*'))) {
      const r = el.getBoundingClientRect();
      if (r.right > limit + 0.5 && r.width > 0) {
        const id = el.id ? `#${el.id}` : '';
        const cls =
          typeof el.className === 'string' && el.className
            ? `.${el.className.trim().split(/\s+/).join('.')}`
            : '';
        const text = (el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
        out.push({
          what: `${el.tagName.toLowerCase()}${id}${cls} (right ${Math.round(r.right)}px) "${text}"`,
          right: r.right,
        });
      }
    }
    return out
      .sort((a, b) => b.right - a.right)
      .slice(0, 8)
      .map((o) => o.what);
  });
}

export interface CheckOptions {
  /** Screenshot name; the viewport width is appended. */
  name: string;
  /** Expected HTTP status of the page (default 200). */
  status?: number;
  /**
   * The page must be wholly in Hindi: <html lang="hi-IN"> and no English word left in what a
   * person reads (text, labels, titles, button values) but the data given here (names, items),
   * ids, e-mail and UPI addresses, amounts and the terms of LATIN_IN_HINDI.
   */
  hindi?: { data?: string[] };
  /** No raw agt_/mdt_/cs_/pi_/qt_ ids in what a person reads outside a <details> ("Details"). */
  idsOnlyInDetails?: boolean;
}

/**
 * Terms a Hindi page keeps in Latin letters, as Indian banks' Hindi pages do (docs/languages.md):
 * names of rails, laws and forms, and units.
 */
export const LATIN_IN_HINDI = [
  'UPI',
  'AutoPay',
  'Reserve Pay',
  'IST',
  'PAN',
  'TCS',
  'LRS',
  'RBI',
  'NPCI',
  'DPDP',
  'ID',
  'S0306',
  'A2',
  'PDF',
  'JSON',
  'API',
  'MCP',
  'ACP',
  'OTP',
  'English',
  // Hindi pages tell the time as "9:27 pm IST" (Intl's hi-IN format).
  'am',
  'pm',
  // ISO 4217 currency codes (USD, AED, …), as the forex pages show them in both languages.
  ...Intl.supportedValuesOf('currency'),
];

/** What a person reads on the page, with where it is: text nodes and the words of attributes. */
async function readableText(page: Page): Promise<{ text: string; inDetails: boolean }[]> {
  return page.evaluate(() => {
    interface El {
      tagName: string;
      hidden?: boolean;
      parentElement: El | null;
      getAttribute(n: string): string | null;
      closest(sel: string): El | null;
    }
    interface TextNode {
      nodeValue: string | null;
      parentElement: El | null;
    }
    const d = document as unknown as {
      createTreeWalker(root: unknown, what: number): { nextNode(): TextNode | null };
      body: unknown;
      querySelectorAll(sel: string): ArrayLike<El>;
      title: string;
    };
    const skip = 'script, style, code, kbd, samp, pre, [translate="no"], [lang]:not([lang^="hi"])';
    const out: { text: string; inDetails: boolean }[] = [{ text: d.title, inDetails: false }];
    const walker = d.createTreeWalker(d.body, 4);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      const text = (n.nodeValue ?? '').trim();
      if (!el || !text) {
        continue;
      }
      const skipped = el.closest(skip);
      const langOf = el.closest('[lang]');
      if (
        skipped &&
        !(langOf && skipped === langOf && langOf.getAttribute('lang')?.startsWith('hi'))
      ) {
        continue;
      }
      out.push({ text, inDetails: el.closest('details') !== null });
    }
    for (const el of Array.from(
      d.querySelectorAll(
        '[title], [aria-label], [placeholder], [alt], input[type="submit"][value]',
      ),
    )) {
      if (el.closest(skip)) {
        continue;
      }
      for (const a of ['title', 'aria-label', 'placeholder', 'alt', 'value']) {
        const v = el.getAttribute(a);
        if (v && (a !== 'value' || el.tagName === 'INPUT')) {
          out.push({ text: v, inDetails: el.closest('details') !== null });
        }
      }
    }
    return out;
  });
}

const ESCAPE = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The English words left in a Hindi page's text once data, ids and allowed terms are taken out. */
export function untranslatedWords(texts: string[], data: string[]): string[] {
  const known = [...data, ...LATIN_IN_HINDI]
    .filter((s) => s.trim() !== '')
    .sort((a, b) => b.length - a.length);
  // One pattern for every known term (longest first), each standing as a whole word.
  const terms = new RegExp(`(^|[^A-Za-z])(?:${known.map(ESCAPE).join('|')})(?![A-Za-z])`, 'g');
  const found = new Set<string>();
  for (const original of texts) {
    const t = original
      .replace(/https?:\/\/\S+/g, ' ')
      .replace(/\S+@\S+/g, ' ')
      .replace(/\b[a-z]{2,6}_[A-Za-z0-9_]+/g, ' ')
      .replace(/\/[\w\-/.?=&%]+/g, ' ')
      .replace(terms, '$1 ');
    const words = t.match(/[A-Za-z]{2,}/g);
    if (words) {
      found.add(`"${original.slice(0, 80)}" (${words.slice(0, 4).join(' ')})`);
    }
  }
  return [...found];
}

const RAW_ID = /\b(agt|mdt|cs|pi|qt)_[A-Za-z0-9]{4,}/;
const ISO_TIME = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

/**
 * The checks every page of the app must pass, collected into one readable failure:
 * - the document response carries the security headers (strict CSP, nosniff, no-referrer);
 * - no console error (a CSP refusal is one), page error or failed load since the last check;
 * - the stylesheet applied (a page whose CSS was blocked would pass axe trivially);
 * - no horizontal overflow: document.documentElement.scrollWidth <= window.innerWidth;
 * - no serious or critical axe-core violation.
 * A full-page screenshot goes to .tmp/screenshots/<name>-<width>.png either way.
 */
export async function checkPage(page: Page, opts: CheckOptions): Promise<void> {
  const state = states.get(page);
  if (!state) {
    throw new Error('checkPage needs a page made by newPage() or browserHarness()');
  }
  await page.waitForLoadState('load');
  const width = page.viewportSize()?.width ?? 0;
  const failures: string[] = [];

  const doc = state.document;
  if (!doc) {
    failures.push('no document response seen');
  } else {
    if (doc.status() !== (opts.status ?? 200)) {
      failures.push(`status ${doc.status()} for ${doc.url()}, want ${opts.status ?? 200}`);
    }
    failures.push(...securityHeaderProblems(await doc.allHeaders()).map((p) => `header: ${p}`));
  }

  // A stylesheet the CSP refused has no .sheet (and a page without its CSS passes axe too easily).
  const sheets = await page.evaluate(() =>
    Array.from(document.querySelectorAll('link[rel="stylesheet"]')).map((l) => l.sheet !== null),
  );
  if (sheets.length === 0 || sheets.includes(false)) {
    failures.push(`stylesheets: ${sheets.length === 0 ? 'none linked' : 'one did not load'}`);
  }

  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  if (scrollWidth > innerWidth) {
    failures.push(
      `horizontal overflow: scrollWidth ${scrollWidth} > innerWidth ${innerWidth}; sticking out:\n    ${(await overflowCulprits(page)).join('\n    ')}`,
    );
  }

  const axe = formatViolations(await axeViolations(page));
  if (axe) {
    failures.push(`axe-core serious/critical violations:\n${axe}`);
  }

  // Every time a person reads is IST in words (docs/languages.md), never an ISO timestamp.
  const texts = await readableText(page);
  const iso = texts.filter((x) => ISO_TIME.test(x.text)).map((x) => x.text.slice(0, 80));
  if (iso.length > 0) {
    failures.push(`ISO timestamps shown to a person: ${iso.slice(0, 5).join(' | ')}`);
  }
  if (opts.idsOnlyInDetails) {
    const ids = texts.filter((x) => !x.inDetails && RAW_ID.test(x.text)).map((x) => x.text);
    if (ids.length > 0) {
      failures.push(`raw ids outside "Details": ${ids.slice(0, 5).join(' | ')}`);
    }
  }
  if (opts.hindi) {
    const lang = await page.evaluate(
      () => (document as unknown as { documentElement: { lang: string } }).documentElement.lang,
    );
    if (lang !== 'hi-IN') {
      failures.push(`<html lang="${lang}">, want hi-IN`);
    }
    const english = untranslatedWords(
      texts.map((x) => x.text),
      opts.hindi.data ?? [],
    );
    if (english.length > 0) {
      failures.push(
        `untranslated text in the Hindi page:\n    ${english.slice(0, 12).join('\n    ')}`,
      );
    }
  }

  failures.push(...state.problems.splice(0));

  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({
    path: join(SCREENSHOT_DIR, `${opts.name}-${width}.png`),
    fullPage: true,
  });

  if (failures.length > 0) {
    throw oneLineError(`${opts.name} at ${width}px (${page.url()}):\n- ${failures.join('\n- ')}`);
  }
}

/** Clicks something that submits a form or follows a link and waits for the next page to load. */
export async function clickAndWait(page: Page, click: () => Promise<void>): Promise<void> {
  const state = states.get(page);
  const before = state?.document ?? null;
  await Promise.all([page.waitForEvent('load'), click()]);
  if (state && state.document === before) {
    throw new Error('the click did not load a new page');
  }
}

/** The page's text with every <details> removed: what a person reads without opening Details. */
export function textOutsideDetails(page: Page): Promise<string> {
  return page.evaluate<string>(
    `(() => { const c = document.body.cloneNode(true); c.querySelectorAll('details').forEach((d) => d.remove()); return c.textContent.replace(/\\s+/g, ' '); })()`,
  );
}

/**
 * Signs in through the app's form as a person does: opens `loginUrl` (the sign-in page, with its
 * `?next=` when wanted), types the e-mail and password and waits for the page it leads to.
 */
export async function signInThroughForm(
  page: Page,
  loginUrl: string,
  email: string,
  password: string,
): Promise<void> {
  await page.goto(loginUrl);
  await page.locator('input[name="email"]').fill(email);
  await page.locator('input[name="password"]').fill(password);
  await clickAndWait(page, () =>
    page.locator('form[action="/app/login"] [type="submit"]').first().click(),
  );
}
