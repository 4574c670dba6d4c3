import request, { Response } from 'supertest';

import { sha256Hex } from '../../src/common/crypto/secrets';
import { randomToken } from '../../src/common/ids';
import { csrfTokenFor } from '../../src/web/csrf';
import { startApp, TestApp } from '../support/app';
import { seedWorkspace } from '../support/seed';

/** name=value of a Set-Cookie, plus its attributes, or null when the response did not set it. */
function cookieOf(res: Response, name: string): { value: string; attrs: string } | null {
  const raw = res.headers['set-cookie'] as unknown as string[] | undefined;
  const line = (raw ?? []).find((c) => c.startsWith(`${name}=`));
  if (!line) {
    return null;
  }
  const [pair, ...attrs] = line.split(';');
  return { value: decodeURIComponent(pair.slice(name.length + 1)), attrs: attrs.join(';') };
}

function csrfFieldOf(html: string): string {
  const m = /name="_csrf" value="([^"]*)"/.exec(html);
  if (!m) {
    throw new Error('page has no _csrf field');
  }
  return m[1];
}

/** GET a pre-session form page; returns its svc_csrf cookie value and hidden field. */
async function preSession(t: TestApp, path: string): Promise<{ cookie: string; field: string }> {
  const res = await request(t.url).get(path);
  expect(res.status).toBe(200);
  const cookie = cookieOf(res, 'svc_csrf');
  expect(cookie).not.toBeNull();
  expect(cookie!.attrs).toMatch(/HttpOnly/);
  expect(cookie!.attrs).toMatch(/SameSite=Lax/);
  expect(cookie!.attrs).toMatch(/Path=\/app/);
  return { cookie: cookie!.value, field: csrfFieldOf(res.text) };
}

async function count(t: TestApp, sql: string, params: unknown[]): Promise<number> {
  const rows = await t.db.query<{ n: string }[]>(sql, params);
  return Number(rows[0].n);
}

describe('person-facing app (/app)', () => {
  let t: TestApp;
  const password = `pw-${randomToken(16)}`;
  const email = `web-${randomToken(8).toLowerCase()}@example.test`;
  // Markup in user data proves Handlebars escapes it everywhere it is shown.
  const workspaceName = `Chai <b>& Co</b> ${randomToken(4)}`;
  const personName = 'Asha <script>x</script> Rao';
  let signupHtml: string;
  let firstKey: string;
  let session: string;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  async function signIn(): Promise<string> {
    const pre = await preSession(t, '/app/login');
    const res = await request(t.url)
      .post('/app/login')
      .type('form')
      .set('Cookie', `svc_csrf=${pre.cookie}`)
      .send({ _csrf: pre.field, email, password, next: '/app' });
    expect(res.status).toBe(303);
    return cookieOf(res, 'svc_session')!.value;
  }

  it('speaks the asked language on pages only: APIs and the stylesheet stay English and do not vary', async () => {
    const page = await request(t.url).get('/app/login').set('Accept-Language', 'hi-IN,hi;q=0.9');
    expect(page.text).toContain('<html lang="hi-IN">');
    expect(page.headers.vary).toMatch(/Accept-Language/);
    const chosen = await request(t.url)
      .get('/app/login')
      .set('Cookie', 'lang=en')
      .set('Accept-Language', 'hi');
    expect(chosen.text).toContain('<html lang="en-IN">');
    for (const path of ['/health', '/app/assets/app.css']) {
      const res = await request(t.url).get(path).set('Accept-Language', 'hi');
      expect(res.headers.vary ?? '').not.toMatch(/Accept-Language/);
    }
  });

  describe('sign-up', () => {
    it('puts the same token in the svc_csrf cookie and the hidden field', async () => {
      const pre = await preSession(t, '/app/signup');
      expect(pre.field).toBe(pre.cookie);
    });

    it('refuses a sign-up post whose _csrf does not match the cookie, creating nothing', async () => {
      const pre = await preSession(t, '/app/signup');
      const res = await request(t.url)
        .post('/app/signup')
        .type('form')
        .set('Cookie', `svc_csrf=${pre.cookie}`)
        .send({ _csrf: 'forged', workspace_name: 'X', name: 'Y', email, password });
      expect(res.status).toBe(403);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(await count(t, 'SELECT count(*) AS n FROM persons WHERE email = $1', [email])).toBe(0);
    });

    it('shows the form again with the message when the password is short', async () => {
      const pre = await preSession(t, '/app/signup');
      const res = await request(t.url)
        .post('/app/signup')
        .type('form')
        .set('Cookie', `svc_csrf=${pre.cookie}`)
        .send({
          _csrf: pre.field,
          workspace_name: 'Short pw',
          name: 'N',
          email,
          password: 'short',
        });
      expect(res.status).toBe(400);
      expect(res.text).toContain('at least 10 characters');
      expect(res.text).toContain(`value="${email}"`);
      expect(res.text).not.toContain('value="short"');
      expect(await count(t, 'SELECT count(*) AS n FROM persons WHERE email = $1', [email])).toBe(0);
    });

    it('creates the workspace, signs in and shows the first API key once', async () => {
      const pre = await preSession(t, '/app/signup');
      const res = await request(t.url)
        .post('/app/signup')
        .type('form')
        .set('Cookie', `svc_csrf=${pre.cookie}`)
        .send({
          _csrf: pre.field,
          workspace_name: workspaceName,
          name: personName,
          email: email.toUpperCase(),
          password,
        });
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      signupHtml = res.text;
      firstKey = /<code id="secret">(sk_test_[A-Za-z0-9]+)<\/code>/.exec(res.text)![1];
      const cookie = cookieOf(res, 'svc_session')!;
      expect(cookie.attrs).toMatch(/HttpOnly/);
      expect(cookie.attrs).toMatch(/SameSite=Lax/);
      expect(cookie.attrs).toMatch(/Path=\/app/);
      expect(cookie.attrs).not.toMatch(/Secure/); // SESSION_COOKIE_SECURE is off outside live mode
      session = cookie.value;

      const [person] = await t.db.query(
        'SELECT id, workspace_id, name FROM persons WHERE email = $1',
        [email],
      );
      expect(person.name).toBe(personName);
      const [ws] = await t.db.query('SELECT name FROM workspaces WHERE id = $1', [
        person.workspace_id,
      ]);
      expect(ws.name).toBe(workspaceName);
      const keys = await t.db.query('SELECT secret_hash FROM api_keys WHERE workspace_id = $1', [
        person.workspace_id,
      ]);
      expect(keys).toEqual([{ secret_hash: sha256Hex(firstKey) }]);
      const sessions = await t.db.query(
        'SELECT token_hash FROM person_sessions WHERE person_id = $1',
        [person.id],
      );
      expect(sessions).toEqual([{ token_hash: sha256Hex(session) }]);

      const ok = await request(t.url)
        .get('/v1/api-keys')
        .set('Authorization', `Bearer ${firstKey}`);
      expect(ok.status).toBe(200);
    });

    it('escapes user data and never renders the password or its hash', () => {
      expect(signupHtml).toContain('Asha &lt;script&gt;x&lt;/script&gt; Rao');
      expect(signupHtml).not.toContain('<script>x</script>');
      expect(signupHtml).not.toContain(password);
      expect(signupHtml).not.toContain('scrypt$');
    });

    it('refuses a second account with the same email', async () => {
      const pre = await preSession(t, '/app/signup');
      const res = await request(t.url)
        .post('/app/signup')
        .type('form')
        .set('Cookie', `svc_csrf=${pre.cookie}`)
        .send({ _csrf: pre.field, workspace_name: 'Dup', name: 'Dup', email, password });
      expect(res.status).toBe(400);
      expect(res.text).toContain('already exists');
      expect(cookieOf(res, 'svc_session')).toBeNull();
    });
  });

  describe('sign-in', () => {
    it('shows an error page for a wrong password and starts no session', async () => {
      const before = await count(t, 'SELECT count(*) AS n FROM person_sessions', []);
      const pre = await preSession(t, '/app/login');
      const res = await request(t.url)
        .post('/app/login')
        .type('form')
        .set('Cookie', `svc_csrf=${pre.cookie}`)
        .send({ _csrf: pre.field, email, password: `${password}x` });
      expect(res.status).toBe(401);
      expect(res.text).toContain('do not match');
      expect(res.text).toContain(`value="${email}"`);
      expect(cookieOf(res, 'svc_session')).toBeNull();
      expect(await count(t, 'SELECT count(*) AS n FROM person_sessions', [])).toBe(before);
    });

    it('answers an unknown email exactly like a wrong password', async () => {
      const pre = await preSession(t, '/app/login');
      const res = await request(t.url)
        .post('/app/login')
        .type('form')
        .set('Cookie', `svc_csrf=${pre.cookie}`)
        .send({ _csrf: pre.field, email: 'nobody@example.test', password });
      expect(res.status).toBe(401);
      expect(res.text).toContain('do not match');
    });

    it('refuses a sign-in post without the double-submit cookie', async () => {
      const pre = await preSession(t, '/app/login');
      const res = await request(t.url)
        .post('/app/login')
        .type('form')
        .send({ _csrf: pre.field, email, password });
      expect(res.status).toBe(403);
      expect(cookieOf(res, 'svc_session')).toBeNull();
    });

    it('sets an HttpOnly session cookie whose value is stored only as a hash', async () => {
      const pre = await preSession(t, '/app/login');
      const res = await request(t.url)
        .post('/app/login')
        .type('form')
        .set('Cookie', `svc_csrf=${pre.cookie}`)
        .send({ _csrf: pre.field, email, password, next: '/app?tab=keys' });
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe('/app?tab=keys');
      const cookie = cookieOf(res, 'svc_session')!;
      expect(cookie.attrs).toMatch(/HttpOnly/);
      expect(cookie.attrs).toMatch(/SameSite=Lax/);
      expect(cookie.attrs).toMatch(/Path=\/app/);
      const rows = await t.db.query('SELECT * FROM person_sessions WHERE token_hash = $1', [
        sha256Hex(cookie.value),
      ]);
      expect(rows).toHaveLength(1);
      const stored = JSON.stringify(rows[0]);
      expect(stored).not.toContain(cookie.value);
      expect(stored).not.toContain(csrfTokenFor(cookie.value));
      const expiresIn = new Date(rows[0].expires_at).getTime() - Date.now();
      expect(expiresIn).toBeGreaterThan(11.9 * 3600_000);
      expect(expiresIn).toBeLessThanOrEqual(12 * 3600_000);
    });

    it('ignores a next that leaves the app', async () => {
      const pre = await preSession(t, '/app/login');
      const res = await request(t.url)
        .post('/app/login')
        .type('form')
        .set('Cookie', `svc_csrf=${pre.cookie}`)
        .send({ _csrf: pre.field, email, password, next: '//evil.example/app' });
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe('/app');
    });
  });

  describe('signed-in home', () => {
    beforeAll(async () => {
      session = await signIn();
    });

    it('shows the workspace, the person, the nav and API key hints only', async () => {
      const res = await request(t.url).get('/app').set('Cookie', `svc_session=${session}`);
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.text).toContain('Chai &lt;b&gt;&amp; Co&lt;/b&gt;');
      expect(res.text).not.toContain('<b>& Co</b>');
      expect(res.text).toContain('Asha &lt;script&gt;');
      expect(res.text).toContain(email);
      expect(res.text).toContain('Approvals');
      expect(res.text).toContain('Consent centre');
      expect(res.text).toContain('<a href="/app/developers">Developers</a>');
      expect(res.text).not.toContain(firstKey);
      expect(csrfFieldOf(res.text)).toBe(csrfTokenFor(session));
      // API keys live in the developer console, hints only.
      const dev = await request(t.url)
        .get('/app/developers')
        .set('Cookie', `svc_session=${session}`);
      expect(dev.status).toBe(200);
      expect(dev.headers['cache-control']).toBe('no-store');
      expect(dev.text).toContain(`sk_test_…${firstKey.slice(-4)}`);
      expect(dev.text).not.toContain(firstKey);
    });

    it('refuses a form post without _csrf (403) and changes nothing', async () => {
      const [{ workspace_id }] = await t.db.query(
        'SELECT workspace_id FROM persons WHERE email = $1',
        [email],
      );
      const before = await count(t, 'SELECT count(*) AS n FROM api_keys WHERE workspace_id = $1', [
        workspace_id,
      ]);
      const missing = await request(t.url)
        .post('/app/api-keys')
        .type('form')
        .set('Cookie', `svc_session=${session}`)
        .send({ name: 'sneaky' });
      expect(missing.status).toBe(403);
      expect(missing.text).toContain('Request refused');
      const wrong = await request(t.url)
        .post('/app/api-keys')
        .type('form')
        .set('Cookie', `svc_session=${session}`)
        .send({
          name: 'sneaky',
          _csrf: csrfTokenFor('another-session-token-aaaaaaaaaaaaaaaaaaaaa'),
        });
      expect(wrong.status).toBe(403);
      expect(
        await count(t, 'SELECT count(*) AS n FROM api_keys WHERE workspace_id = $1', [
          workspace_id,
        ]),
      ).toBe(before);
    });

    it('creates an API key from the form, shows its secret once, then only its hint', async () => {
      const created = await request(t.url)
        .post('/app/api-keys')
        .type('form')
        .set('Cookie', `svc_session=${session}`)
        .send({ name: 'ci <deploy>', _csrf: csrfTokenFor(session) });
      expect(created.status).toBe(200);
      expect(created.headers['cache-control']).toBe('no-store');
      expect(created.text).toContain('ci &lt;deploy&gt;');
      const secret = /<code id="secret">(sk_test_[A-Za-z0-9]+)<\/code>/.exec(created.text)![1];
      const [row] = await t.db.query(
        'SELECT name, revoked_at FROM api_keys WHERE secret_hash = $1',
        [sha256Hex(secret)],
      );
      expect(row).toEqual({ name: 'ci <deploy>', revoked_at: null });
      expect(
        (await request(t.url).get('/v1/api-keys').set('Authorization', `Bearer ${secret}`)).status,
      ).toBe(200);

      const dev = await request(t.url)
        .get('/app/developers')
        .set('Cookie', `svc_session=${session}`);
      expect(dev.text).not.toContain(secret);
      expect(dev.text).toContain(`sk_test_…${secret.slice(-4)}`);
    });

    it('revokes an API key from the form; the key stops authenticating', async () => {
      const [key] = await t.db.query(
        `SELECT k.id FROM api_keys k JOIN persons p ON p.workspace_id = k.workspace_id
          WHERE p.email = $1 AND k.secret_hash = $2`,
        [email, sha256Hex(firstKey)],
      );
      const res = await request(t.url)
        .post(`/app/api-keys/${key.id}/revoke`)
        .type('form')
        .set('Cookie', `svc_session=${session}`)
        .send({ _csrf: csrfTokenFor(session) });
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe('/app/developers');
      const [row] = await t.db.query('SELECT revoked_at FROM api_keys WHERE id = $1', [key.id]);
      expect(row.revoked_at).not.toBeNull();
      expect(
        (await request(t.url).get('/v1/api-keys').set('Authorization', `Bearer ${firstKey}`))
          .status,
      ).toBe(401);
      const dev = await request(t.url)
        .get('/app/developers')
        .set('Cookie', `svc_session=${session}`);
      expect(dev.text).not.toContain(`action="/app/api-keys/${key.id}/revoke"`);
    });

    it('cannot revoke a key of another workspace', async () => {
      const other = await seedWorkspace(t);
      const [key] = await t.db.query('SELECT id FROM api_keys WHERE secret_hash = $1', [
        sha256Hex(other.apiKey),
      ]);
      const res = await request(t.url)
        .post(`/app/api-keys/${key.id}/revoke`)
        .type('form')
        .set('Cookie', `svc_session=${session}`)
        .send({ _csrf: csrfTokenFor(session) });
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      const [row] = await t.db.query('SELECT revoked_at FROM api_keys WHERE id = $1', [key.id]);
      expect(row.revoked_at).toBeNull();
    });
  });

  describe('signed out', () => {
    it('redirects GET /app to the sign-in page', async () => {
      const res = await request(t.url).get('/app');
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe('/app/login?next=%2Fapp');
    });

    it('answers a form post without a session with 401 and no change', async () => {
      const res = await request(t.url)
        .post('/app/api-keys')
        .type('form')
        .send({ name: 'x', _csrf: 'x' });
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toMatch(/text\/html/);
    });

    it('signs out: the session row is deleted and the old cookie no longer works', async () => {
      const own = await signIn();
      const noCsrf = await request(t.url)
        .post('/app/logout')
        .type('form')
        .set('Cookie', `svc_session=${own}`)
        .send({});
      expect(noCsrf.status).toBe(403);
      const res = await request(t.url)
        .post('/app/logout')
        .type('form')
        .set('Cookie', `svc_session=${own}`)
        .send({ _csrf: csrfTokenFor(own) });
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe('/app/login');
      expect(cookieOf(res, 'svc_session')!.attrs).toMatch(/Expires=Thu, 01 Jan 1970/);
      expect(
        await count(t, 'SELECT count(*) AS n FROM person_sessions WHERE token_hash = $1', [
          sha256Hex(own),
        ]),
      ).toBe(0);
      const after = await request(t.url).get('/app/').set('Cookie', `svc_session=${own}`);
      expect(after.status).toBe(303);
      expect(after.headers.location).toMatch(/^\/app\/login\?next=/);
    });

    it('ends a session 12 hours after sign-in', async () => {
      const own = await signIn();
      try {
        t.clock.advance(12 * 3600_000 + 1000);
        const res = await request(t.url).get('/app').set('Cookie', `svc_session=${own}`);
        expect(res.status).toBe(303);
        expect(
          await count(t, 'SELECT count(*) AS n FROM person_sessions WHERE token_hash = $1', [
            sha256Hex(own),
          ]),
        ).toBe(0);
      } finally {
        t.clock.reset();
      }
    });
  });
});
