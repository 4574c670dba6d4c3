import { AppError } from '../common/errors/app-error';

/** Result of a form submission: the value, or a 4xx the page shows next to the form. */
export type FormOutcome<T> =
  | { ok: true; value: T }
  | { ok: false; status: number; code: string; message: string; param?: string };

/**
 * Runs a use case for a form and turns its client errors (AppError 4xx) into a value, so the
 * handler can re-render the form with the message (in the page's language: errorWords in
 * src/web/error-words.ts). Anything else (5xx, bugs) still throws.
 */
export async function attempt<T>(work: Promise<T>): Promise<FormOutcome<T>> {
  try {
    return { ok: true, value: await work };
  } catch (err) {
    if (err instanceof AppError && err.status < 500) {
      return {
        ok: false,
        status: err.status,
        code: err.code,
        message: err.message,
        param: err.param,
      };
    }
    throw err;
  }
}
