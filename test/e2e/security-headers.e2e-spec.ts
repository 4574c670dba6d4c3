import request, { Response } from 'supertest';

import { signIn } from '../factories/app-session.factory';
import { startApp, TestApp } from '../support/app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/** The CSP header as a map of directive -> sources. */
function csp(res: Response): Map<string, string[]> {
  const header = res.headers['content-security-policy'] as string | undefined;
  expect(header).toBeDefined();
  return new Map(
    header!
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0] !== '')
      .map(([name, ...sources]) => [name, sources]),
  );
}

/** Headers every response carries, whatever its kind. */
function expectCommonHeaders(res: Response): void {
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
  expect(res.headers['x-frame-options']).toBe('DENY');
  expect(res.headers['x-powered-by']).toBeUndefined();
  // Outside live mode the service speaks plain http: no HSTS, no upgrade-insecure-requests.
  expect(res.headers['strict-transport-security']).toBeUndefined();
  const policy = csp(res);
  expect(policy.get('default-src')).toEqual(["'self'"]);
  expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
  expect(policy.get('script-src')).toEqual(["'self'"]);
  expect(policy.get('object-src')).toEqual(["'none'"]);
  expect(policy.has('upgrade-insecure-requests')).toBe(false);
}

/** The strict policy of the app's pages and the API: no inline styles either. */
function expectStrictHeaders(res: Response): void {
  expectCommonHeaders(res);
  const policy = csp(res);
  expect(policy.get('style-src')).toEqual(["'self'"]);
  expect(policy.get('form-action')).toEqual(["'self'"]);
  expect(res.headers['content-security-policy']).not.toContain('unsafe-inline');
  expect(res.headers['content-security-policy']).not.toContain('unsafe-eval');
}

/** What the CSP would block: inline scripts, <style> blocks, style attributes, inline handlers. */
function expectNoInlineCode(html: string): void {
  expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/i);
  expect(html).not.toMatch(/<style[\s>]/i);
  expect(html).not.toMatch(/\sstyle\s*=/i);
  expect(html).not.toMatch(/\son[a-z]+\s*=/i);
  expect(html).not.toMatch(/href\s*=\s*["']?\s*javascript:/i);
}

describe('security headers', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let cookie: string;

  beforeAll(async () => {
    t = await startApp();
    ws = await seedWorkspace(t);
    cookie = (await signIn(t, ws.email, ws.password)).cookie;
  });
  afterAll(() => t.close());

  describe('app pages', () => {
    it.each(['/app/login', '/app/signup', '/app/legal/terms', '/app/legal/privacy'])(
      '%s (signed out)',
      async (path) => {
        const res = await request(t.url).get(path).expect(200);
        expect(res.headers['content-type']).toMatch(/^text\/html/);
        expectStrictHeaders(res);
        expectNoInlineCode(res.text);
        expect(res.text).toContain('<link rel="stylesheet" href="/app/assets/app.css">');
      },
    );

    it.each(['/app', '/app/approvals', '/app/consent'])('%s (signed in)', async (path) => {
      const res = await request(t.url).get(path).set('Cookie', cookie).expect(200);
      expectStrictHeaders(res);
      expectNoInlineCode(res.text);
    });

    it('an error page carries them too', async () => {
      const res = await request(t.url).get('/app/orders/ord_doesnotexist').expect(404);
      expectStrictHeaders(res);
      expectNoInlineCode(res.text);
    });

    it('a redirect to sign-in carries them', async () => {
      const res = await request(t.url).get('/app/approvals');
      expect([302, 303]).toContain(res.status);
      expectStrictHeaders(res);
    });

    it('serves the shared stylesheet same-origin, as text/css with nosniff', async () => {
      const res = await request(t.url).get('/app/assets/app.css').expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/css/);
      expectStrictHeaders(res);
      expect(res.text).toContain('body');
    });

    it('does not list the assets folder or serve templates from it', async () => {
      expect((await request(t.url).get('/app/assets/')).status).toBe(404);
      expect((await request(t.url).get('/app/assets/../partials/head.hbs')).status).toBe(404);
    });
  });

  describe('API', () => {
    it('a JSON answer (/.well-known/jwks.json) carries them', async () => {
      const res = await request(t.url).get('/.well-known/jwks.json').expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/(jwk-set\+)?json/);
      expectStrictHeaders(res);
    });

    it('an API error (401 on /v1) carries them', async () => {
      const res = await request(t.url).get('/v1/pay/mandates');
      expect(res.status).toBe(401);
      expectStrictHeaders(res);
    });

    it('an authenticated /v1 call carries them', async () => {
      const res = await request(t.url)
        .get('/v1/pay/mandates')
        .set('Authorization', `Bearer ${ws.apiKey}`)
        .expect(200);
      expectStrictHeaders(res);
    });

    it('an ACP error carries them', async () => {
      const res = await request(t.url).get('/acp/checkout_sessions/cs_nope');
      expect(res.status).toBeGreaterThanOrEqual(400);
      expectStrictHeaders(res);
    });
  });

  describe('/docs (Swagger UI)', () => {
    it('still loads, under its own policy: inline styles allowed, scripts same-origin only', async () => {
      const res = await request(t.url).get('/docs').redirects(1).expect(200);
      expect(res.text).toContain('swagger-ui');
      expectCommonHeaders(res);
      const policy = csp(res);
      expect(policy.get('style-src')).toEqual(["'self'", "'unsafe-inline'"]);
      // Every script Swagger UI needs is a same-origin file the policy allows.
      const scripts = [...res.text.matchAll(/<script[^>]*\ssrc=["']([^"']+)["']/g)].map(
        (m) => m[1],
      );
      expect(scripts.length).toBeGreaterThan(0);
      expect(res.text).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/i);
      for (const src of scripts) {
        const url = new URL(src, `${t.url}/docs`);
        expect(url.origin).toBe(t.url);
        const js = await request(t.url).get(url.pathname).expect(200);
        expect(js.headers['content-type']).toMatch(/javascript/);
      }
    });

    it('serves the OpenAPI document', async () => {
      const res = await request(t.url).get('/docs/openapi.json').expect(200);
      expect(res.body.openapi).toMatch(/^3\./);
      expectCommonHeaders(res);
    });
  });
});
