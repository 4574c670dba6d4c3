import { hasKey, Translator } from '../common/i18n/catalogue';

/** What the error page or a form says about an error: a heading and one sentence. */
export interface ErrorWords {
  heading: string;
  message: string;
}

/** The parts of an AppError (or a FormOutcome) the words are chosen by. */
export interface ErrorFacts {
  status: number;
  code: string;
  message: string;
  param?: string;
}

/**
 * An error a person reads, in the page's language (docs/languages.md): by the field of a form
 * (`errors.field.<param>`), else by its code (`errors.code.<code>`), else in general words for
 * its status. The service's own English message is kept only on an English page for a 4xx
 * whose code has no words yet; a Hindi page never shows it. The agent-facing JSON errors are
 * not made here and stay English.
 */
export function errorWords(tr: Translator, err: ErrorFacts): ErrorWords {
  const headingKey = `errors.heading.${err.status}`;
  const heading = tr.t(hasKey(headingKey) ? headingKey : 'errors.heading.other');
  const field = err.param?.replace(/^\$\./, '');
  const keys = [
    ...(field && (err.code === 'invalid' || err.code === 'missing')
      ? [`errors.field.${field}`]
      : []),
    `errors.code.${err.code}`,
  ];
  const known = keys.find((k) => hasKey(k));
  if (known) {
    return { heading, message: tr.t(known) };
  }
  if (tr.lang === 'en' && err.status < 500) {
    return { heading, message: err.message };
  }
  const genericKey = `errors.generic.${err.status}`;
  return { heading, message: tr.t(hasKey(genericKey) ? genericKey : 'errors.generic.other') };
}
