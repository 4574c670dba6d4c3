import hbs from 'hbs';

import { translator, Vars } from '../common/i18n/catalogue';
import { DEFAULT_LANGUAGE, isLanguage, Language } from '../common/i18n/language';
import { formatRupees } from '../common/money';

let registered = false;

interface HelperOptions {
  hash?: Vars;
  data?: { root?: { lang?: unknown } };
}

/** The page's language: res.locals.lang (languageMiddleware), English outside a request. */
function langOf(options: HelperOptions | undefined): Language {
  const lang = options?.data?.root?.lang;
  return isLanguage(lang) ? lang : DEFAULT_LANGUAGE;
}

/**
 * All Handlebars helpers, registered once. Templates format; they do not decide.
 * Words come from the catalogues (docs/languages.md): {{t "pay.status.title" amount=total}}.
 */
export function registerViewHelpers(): void {
  if (registered) {
    return;
  }
  registered = true;
  const h = hbs.handlebars;
  h.registerHelper('t', (key: string, options: HelperOptions) =>
    translator(langOf(options)).t(key, options.hash),
  );
  h.registerHelper('rupees', (paise: number) => formatRupees(paise));
  h.registerHelper('eq', (a: unknown, b: unknown) => a === b);
  h.registerHelper('iso', (d: Date | string | null) => (d ? new Date(d).toISOString() : ''));
  /** Times for people: India time in the page's language, "3 Mar 2026, 2:05 pm IST". */
  h.registerHelper('ist', (d: Date | string | null, options: HelperOptions) =>
    d ? translator(langOf(options)).ist(d) : '',
  );
  /** "3 Mar 2026" in India. */
  h.registerHelper('istDate', (d: Date | string | null, options: HelperOptions) =>
    d ? translator(langOf(options)).istDate(d) : '',
  );
  /** A country's name in the page's language, from its ISO 3166 code. */
  h.registerHelper('country', (code: string, options: HelperOptions) =>
    code ? translator(langOf(options)).country(code) : '',
  );
  h.registerHelper('json', (v: unknown) => JSON.stringify(v, null, 2));
  hbs.registerPartials(`${__dirname}/../../views/partials`);
}
