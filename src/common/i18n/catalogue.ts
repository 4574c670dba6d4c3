import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import i18next, { i18n as I18n, TFunction } from 'i18next';

import { formatRupees } from '../money';
import { DEFAULT_LANGUAGE, HTML_LANG, Language, LANGUAGES } from './language';

/**
 * The catalogues of person-facing words (docs/languages.md): one folder per language under
 * `locales/`, one JSON file per area of the product, each file's name its top-level key
 * (`locales/hi/pay.json` holds `pay.*`). Every language has every key; a unit test holds them
 * equal. Lookups go through i18next (interpolation `{{name}}`, plurals `_one`/`_other`).
 */
export const LOCALES_DIR = join(__dirname, '..', '..', '..', 'locales');

export type Catalogue = Record<string, unknown>;

/** All of one language's files, merged under their file names. */
export function readCatalogue(lang: Language, dir = LOCALES_DIR): Catalogue {
  const out: Catalogue = {};
  for (const file of readdirSync(join(dir, lang))
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    out[file.replace(/\.json$/, '')] = JSON.parse(
      readFileSync(join(dir, lang, file), 'utf8'),
    ) as unknown;
  }
  return out;
}

/** Every time a person reads is Indian Standard Time, whatever the server's zone. */
export const PERSON_TIME_ZONE = 'Asia/Kolkata';

let instance: I18n | null = null;

function catalogues(): I18n {
  if (!instance) {
    instance = i18next.createInstance();
    void instance.init({
      resources: Object.fromEntries(LANGUAGES.map((l) => [l, { translation: readCatalogue(l) }])),
      lng: DEFAULT_LANGUAGE,
      fallbackLng: DEFAULT_LANGUAGE,
      supportedLngs: [...LANGUAGES],
      initAsync: false,
      returnNull: false,
      // Handlebars escapes what helpers return; presenters' strings are escaped by the template.
      interpolation: { escapeValue: false },
    });
  }
  return instance;
}

export type Vars = Record<string, string | number>;

/**
 * Everything a presenter needs to speak one language: `t(key, vars)`, and amounts, times and
 * country names formatted for it. Amounts are the same in both (₹3,550.00, Indian grouping).
 */
export interface Translator {
  readonly lang: Language;
  readonly htmlLang: string;
  t(key: string, vars?: Vars): string;
  rupees(paise: number): string;
  /** "25 Nov 2026, 9:27 pm IST" / "25 नव॰ 2026, 9:27 pm IST". */
  ist(d: Date | string): string;
  /** "25 Nov 2026" in India. */
  istDate(d: Date | string): string;
  /** "United Arab Emirates" / "संयुक्त अरब अमीरात" for AE; the code itself when unknown. */
  country(code: string): string;
  /** "in 23 h", "in 40 min", "in 2 days"; "3 h ago" for the past. Rounded down, never "in 0 min". */
  relative(d: Date, now: Date): string;
}

/** The words of relative(): a span ("40 min") put into "in …" or "… ago". */
function relativeWith(t: (key: string, vars?: Vars) => string, d: Date, now: Date): string {
  const ms = d.getTime() - now.getTime();
  const min = Math.floor(Math.abs(ms) / 60_000);
  const span =
    min < 1
      ? t('common.time.under_a_minute')
      : min < 60
        ? t('common.time.minutes', { count: min })
        : min < 48 * 60
          ? t('common.time.hours', { count: Math.floor(min / 60) })
          : t('common.time.days', { count: Math.floor(min / 1440) });
  return t(ms >= 0 ? 'common.time.in' : 'common.time.ago', { span });
}

const IST_TIME = new Map<Language, Intl.DateTimeFormat>();
const IST_DATE = new Map<Language, Intl.DateTimeFormat>();
const REGIONS = new Map<Language, Intl.DisplayNames>();

function istFormat(lang: Language, withTime: boolean): Intl.DateTimeFormat {
  const cache = withTime ? IST_TIME : IST_DATE;
  let f = cache.get(lang);
  if (!f) {
    f = new Intl.DateTimeFormat(HTML_LANG[lang], {
      timeZone: PERSON_TIME_ZONE,
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      ...(withTime ? { hour: 'numeric', minute: '2-digit', hour12: true } : {}),
    });
    cache.set(lang, f);
  }
  return f;
}

const translators = new Map<Language, Translator>();

export function translator(lang: Language): Translator {
  let tr = translators.get(lang);
  if (!tr) {
    const fixed: TFunction = catalogues().getFixedT(lang);
    const t = (key: string, vars?: Vars) => fixed(key, vars ?? {});
    tr = {
      lang,
      htmlLang: HTML_LANG[lang],
      t,
      relative: (d, now) => relativeWith(t, d, now),
      rupees: formatRupees,
      ist: (d) => `${istFormat(lang, true).format(new Date(d))} IST`,
      istDate: (d) => istFormat(lang, false).format(new Date(d)),
      country: (code) => {
        let names = REGIONS.get(lang);
        if (!names) {
          names = new Intl.DisplayNames([HTML_LANG[lang]], { type: 'region', fallback: 'code' });
          REGIONS.set(lang, names);
        }
        try {
          return names.of(code.toUpperCase()) ?? code;
        } catch {
          return code;
        }
      },
    };
    translators.set(lang, tr);
  }
  return tr;
}

/** Does the catalogue hold this key (in English, which holds every key)? */
export function hasKey(key: string): boolean {
  return catalogues().exists(key, { lng: DEFAULT_LANGUAGE, fallbackLng: false });
}
