import request from 'supertest';

import type { TestApp } from '../support/app';

export interface AppSession {
  /** Cookie header value carrying svc_session. */
  cookie: string;
}

function cookiesOf(res: request.Response): string[] {
  const raw = res.headers['set-cookie'] as unknown;
  return Array.isArray(raw) ? (raw as string[]) : typeof raw === 'string' ? [raw] : [];
}

/** Signs a person in through the real login form (pre-session CSRF cookie + _csrf field). */
export async function signIn(t: TestApp, email: string, password: string): Promise<AppSession> {
  const form = await request(t.url).get('/app/login').expect(200);
  const csrfCookie = cookiesOf(form)
    .find((c) => c.startsWith('svc_csrf='))!
    .split(';')[0];
  const res = await request(t.url)
    .post('/app/login')
    .set('Cookie', csrfCookie)
    .type('form')
    .send({ _csrf: csrfFieldOf(form.text), email, password });
  if (res.status !== 303) {
    throw new Error(
      `sign-in failed: ${res.status} ${res.text.replace(/\s+/g, ' ').slice(0, 2000)}`,
    );
  }
  const session = cookiesOf(res).find((c) => c.startsWith('svc_session='));
  return { cookie: session!.split(';')[0] };
}

/** The _csrf hidden field of a rendered page. */
export function csrfFieldOf(html: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!m) {
    throw new Error('no _csrf field on the page');
  }
  return m[1];
}
