import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';

/** Swagger UI and its assets (SwaggerModule.setup('docs') in app.setup.ts). */
export const DOCS_PREFIX = '/docs';

/**
 * The app's pages load only same-origin files: no inline script or style, no frames, forms post
 * only to us. Every inline style or script in views/** would be blocked; styles live in
 * views/assets/ (served under /app/assets/).
 */
const APP_CSP: Record<string, string[]> = {
  'default-src': ["'self'"],
  'base-uri': ["'none'"],
  'object-src': ["'none'"],
  'frame-ancestors': ["'none'"],
  'form-action': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'"],
  'connect-src': ["'self'"],
};

/**
 * Swagger UI writes inline styles (its HTML template and the rendered operations) and shows
 * data: images; its scripts are same-origin files. Everything else stays as strict as the app.
 */
const DOCS_CSP: Record<string, string[]> = {
  ...APP_CSP,
  'style-src': ["'self'", "'unsafe-inline'"],
};

/**
 * The operators' queue dashboard (Bull Board, src/ops/queue-dashboard.ts): its page sets
 * <base href> to its own path and writes inline styles (its loading screen, and styles on
 * rendered elements); its scripts and stylesheet are same-origin files. Only its responses to a
 * signed-in operator get these two relaxations (QueueDashboardController replaces the header),
 * so its address answers everyone else exactly like any unknown page. Its web-font stylesheet
 * (a third-party origin) stays blocked: the page falls back to system fonts.
 */
export function queueDashboardCsp(opts: {
  live: boolean;
}): (req: Request, res: Response, next: NextFunction) => void {
  const csp: Record<string, string[]> = {
    ...APP_CSP,
    'base-uri': ["'self'"],
    'style-src': ["'self'", "'unsafe-inline'"],
  };
  return helmet.contentSecurityPolicy({
    useDefaults: false,
    directives: opts.live ? { ...csp, 'upgrade-insecure-requests': [] } : csp,
  });
}

function headers(csp: Record<string, string[]>, live: boolean) {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      // Only where the site is served over https: on http://localhost it would break the page.
      directives: live ? { ...csp, 'upgrade-insecure-requests': [] } : csp,
    },
    referrerPolicy: { policy: 'no-referrer' },
    xFrameOptions: { action: 'deny' },
    // HSTS only means something over https, which only live mode requires.
    strictTransportSecurity: live ? { maxAge: 31_536_000, includeSubDomains: true } : false,
  });
}

/**
 * Security headers on every response (pages, API, errors, static files): a strict CSP,
 * X-Content-Type-Options: nosniff, Referrer-Policy: no-referrer, X-Frame-Options: DENY and
 * helmet's other defaults. /docs gets its own, looser style policy.
 */
export function securityHeaders(opts: {
  live: boolean;
}): (req: Request, res: Response, next: NextFunction) => void {
  const app = headers(APP_CSP, opts.live);
  const docs = headers(DOCS_CSP, opts.live);
  return (req, res, next) => {
    const isDocs = req.path === DOCS_PREFIX || req.path.startsWith(`${DOCS_PREFIX}/`);
    (isDocs ? docs : app)(req, res, next);
  };
}
