import { createHmac, randomBytes } from 'node:crypto';

import { constantTimeEqual } from '../common/crypto/secrets';
import { identityNumberIn } from '../common/identity/identity-numbers';

/** Cookie holding the session token (plaintext only in the browser; the DB keeps its SHA-256). */
export const SESSION_COOKIE = 'svc_session';
/** Pre-session double-submit cookie for the sign-in and sign-up forms. */
export const PRE_SESSION_CSRF_COOKIE = 'svc_csrf';
/** Form field (or X-CSRF-Token header) that carries the token on every POST under /app. */
export const CSRF_FIELD = '_csrf';
/** Cookies are scoped to the app; /v1 and /acp never see them. */
export const APP_COOKIE_PATH = '/app';

/**
 * 256 random bits, base64url: safe in a cookie and in an HTML attribute. The token (the sign-in
 * form's `_csrf`) and the CSRF token derived from it (every signed-in form's `_csrf`) come back in
 * form bodies, which the edge checks for identity numbers (docs/personal-data.md "Identity numbers
 * we refuse"). base64url's `-` and `_` read as separators there, so about one token in 130,000
 * holds a PAN-shaped run (`…-ABCPE1234F_…`) and every form sent with it would be refused. Such a
 * draw is thrown away and another taken.
 */
export function newBrowserToken(random: (size: number) => Buffer = randomBytes): string {
  for (;;) {
    const token = random(32).toString('base64url');
    if (identityNumberIn(token) === null && identityNumberIn(csrfTokenFor(token)) === null) {
      return token;
    }
  }
}

/**
 * Synchronizer token bound to the session: HMAC-SHA256(key = session token, 'csrf'), base64url.
 * It is recomputed from the cookie on each POST, so nothing secret needs storing server-side, and
 * it changes whenever the session does (sign-in, sign-out).
 */
export function csrfTokenFor(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('csrf').digest('base64url');
}

/** Constant-time comparison; a missing or non-string value never matches. */
export function csrfMatches(sent: unknown, expected: string | undefined): boolean {
  return (
    typeof sent === 'string' &&
    sent.length > 0 &&
    typeof expected === 'string' &&
    expected.length > 0 &&
    constantTimeEqual(sent, expected)
  );
}

/**
 * Where to go after sign-in. Only paths inside the app are accepted, so `next` cannot be used as
 * an open redirect (`//evil.example`, `/\evil`, absolute URLs all fall back to /app).
 */
export function safeNext(next: unknown): string {
  if (
    typeof next !== 'string' ||
    !/^\/app(?:[/?#]|$)/.test(next) ||
    /[\\\s]/.test(next) ||
    next.startsWith('//')
  ) {
    return '/app';
  }
  return next;
}

export function loginUrl(next: string): string {
  return `/app/login?next=${encodeURIComponent(safeNext(next))}`;
}
