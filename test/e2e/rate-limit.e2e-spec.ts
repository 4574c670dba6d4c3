import request from 'supertest';
import { signIn } from '../factories/app-session.factory';
import { startApp, TestApp } from '../support/app';
import { seedWorkspace } from '../support/seed';

function cookiesOf(res: request.Response): string[] {
  const raw = res.headers['set-cookie'] as unknown;
  return Array.isArray(raw) ? (raw as string[]) : typeof raw === 'string' ? [raw] : [];
}

describe('rate limits on unauthenticated routes', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({ rateLimitLoginPerMinute: 3, rateLimitPublicPerMinute: 5 });
  });
  afterAll(() => t.close());

  it('stops password guessing against one account after the limit, with Retry-After, and creates no session', async () => {
    const ws = await seedWorkspace(t);
    const form = await request(t.url).get('/app/login').expect(200);
    const csrfCookie = cookiesOf(form).find((c) => c.startsWith('svc_csrf='))!.split(';')[0];
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)![1];
    const attempt = () =>
      request(t.url).post('/app/login').set('Cookie', csrfCookie).type('form').send({ _csrf: csrf, email: ws.email, password: 'wrong-password-1' });
    for (let i = 0; i < 3; i++) {
      expect((await attempt()).status).toBe(401);
    }
    const blocked = await attempt();
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    // Even the right password is refused while blocked: the limiter runs before the check.
    const right = await request(t.url)
      .post('/app/login')
      .set('Cookie', csrfCookie)
      .type('form')
      .send({ _csrf: csrf, email: ws.email, password: ws.password });
    expect(right.status).toBe(429);
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM person_sessions WHERE person_id = $1`, [ws.personId]);
    expect(n).toBe(0);
    // Another account from the same address is unaffected.
    const other = await seedWorkspace(t);
    await expect(signIn(t, other.email, other.password)).resolves.toHaveProperty('cookie');
  });

  it('limits ACP discovery per client with a flat ACP-style 429', async () => {
    for (let i = 0; i < 5; i++) {
      await request(t.url).get('/.well-known/acp.json').expect(200);
    }
    const res = await request(t.url).get('/.well-known/acp.json');
    expect(res.status).toBe(429);
    expect(res.body.error).toMatchObject({ type: 'rate_limit_exceeded', code: 'too_many_requests' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });
});
