import type { NextFunction, Request, Response } from 'express';

import { underPrefixes } from '../http/content-type';

/**
 * The languages of the person-facing pages (docs/languages.md). Agent-facing APIs stay English.
 * A person's choice (the switch in every page header, remembered in the `lang` cookie) wins over
 * the browser's Accept-Language; English when neither says.
 */
export const LANGUAGES = ['en', 'hi'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'en';

/** The cookie remembering the switch: a preference, not a secret, one year, every path. */
export const LANGUAGE_COOKIE = 'lang';
export const LANGUAGE_COOKIE_MAX_AGE_MS = 365 * 24 * 3600 * 1000;

/** BCP 47 tags for `<html lang>` and Content-Language. */
export const HTML_LANG: Record<Language, string> = { en: 'en-IN', hi: 'hi-IN' };

/** Each language's own name, as the switch shows it. */
export const LANGUAGE_NAMES: Record<Language, string> = { en: 'English', hi: 'हिन्दी' };

export function isLanguage(v: unknown): v is Language {
  return typeof v === 'string' && (LANGUAGES as readonly string[]).includes(v);
}

/** The cookie's choice, else the best of Accept-Language, else English. */
export function languageOf(req: Request): Language {
  const chosen = (req.cookies as Record<string, unknown> | undefined)?.[LANGUAGE_COOKIE];
  if (isLanguage(chosen)) {
    return chosen;
  }
  const best = req.acceptsLanguages(...LANGUAGES);
  return isLanguage(best) ? best : DEFAULT_LANGUAGE;
}

/** The language a page is rendered in, set on every request by languageMiddleware. */
export function languageOfResponse(res: Response): Language {
  const lang = (res.locals as { lang?: unknown }).lang;
  return isLanguage(lang) ? lang : DEFAULT_LANGUAGE;
}

/**
 * The switch to the other language, back to `next` (a path of this site) or, without one, to the
 * app's home: error pages give none, so a 404 says nothing of the address asked for.
 */
export function languageSwitch(
  lang: Language,
  next?: string,
): { lang: Language; htmlLang: string; label: string; href: string } {
  const other: Language = lang === 'en' ? 'hi' : 'en';
  return {
    lang: other,
    htmlLang: HTML_LANG[other],
    label: LANGUAGE_NAMES[other],
    href: `/app/language?to=${other}${next === undefined ? '' : `&next=${encodeURIComponent(next)}`}`,
  };
}

/** Where people read pages: the app, its pay pages and its legal pages, not its stylesheet. */
function isPage(req: Request): boolean {
  return underPrefixes(req, ['/app']) && !underPrefixes(req, ['/app/assets']);
}

/**
 * On page routes, sets `res.locals.lang` (read by the `t`, `ist` and `country` view helpers and by
 * presenters through the @PageLanguage() decorator), `htmlLang` and the switch's locals; pages vary
 * by Accept-Language. APIs and assets are left alone: without a language they speak English.
 */
export function languageMiddleware(req: Request, res: Response, next: NextFunction): void {
  if (isPage(req)) {
    const lang = languageOf(req);
    res.locals.lang = lang;
    res.locals.htmlLang = HTML_LANG[lang];
    res.locals.languageSwitch = languageSwitch(lang, req.originalUrl);
    res.vary('Accept-Language');
  }
  next();
}
