import Redis from 'ioredis';
import request from 'supertest';

import { randomToken } from '../../src/common/ids';
import { signIn } from '../factories/app-session.factory';
import { startApp, TestApp } from '../support/app';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';
import { TEST_REDIS_URL } from '../support/test-db';

function cookiesOf(res: request.Response): string[] {
  const raw = res.headers['set-cookie'] as unknown;
  return Array.isArray(raw) ? (raw as string[]) : typeof raw === 'string' ? [raw] : [];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function limitHeaders(res: request.Response) {
  return {
    limit: res.headers['ratelimit-limit'],
    remaining: res.headers['ratelimit-remaining'],
    reset: res.headers['ratelimit-reset'],
    policy: res.headers['ratelimit-policy'],
  };
}

describe('rate limits on sign-in', () => {
  let t: TestApp;

  beforeAll(async () => {
    // Every count's headers are read: a late answer from Redis must not fail open here.
    t = await startApp({ rateLimitLoginPerMinute: 3, rateLimitRedisTimeoutMs: 5_000 });
  });
  afterAll(() => t.close());

  it('stops password guessing against one account after the limit, with Retry-After, and creates no session', async () => {
    const ws = await seedWorkspace(t);
    const form = await request(t.url).get('/app/login').expect(200);
    const csrfCookie = cookiesOf(form)
      .find((c) => c.startsWith('svc_csrf='))!
      .split(';')[0];
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)![1];
    const attempt = () =>
      request(t.url)
        .post('/app/login')
        .set('Cookie', csrfCookie)
        .type('form')
        .send({ _csrf: csrf, email: ws.email, password: 'wrong-password-1' });
    for (let i = 0; i < 3; i++) {
      expect((await attempt()).status).toBe(401);
    }
    const blocked = await attempt();
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(limitHeaders(blocked)).toMatchObject({ limit: '3', remaining: '0' });
    // Even the right password is refused while blocked: the limiter runs before the check.
    const right = await request(t.url)
      .post('/app/login')
      .set('Cookie', csrfCookie)
      .type('form')
      .send({ _csrf: csrf, email: ws.email, password: ws.password });
    expect(right.status).toBe(429);
    const [{ n }] = await t.db.query(
      `SELECT count(*)::int AS n FROM person_sessions WHERE person_id = $1`,
      [ws.personId],
    );
    expect(n).toBe(0);
    // Another account from the same address is unaffected.
    const other = await seedWorkspace(t);
    await expect(signIn(t, other.email, other.password)).resolves.toHaveProperty('cookie');
  });
});

/**
 * Two instances on one Redis with the same key prefix (QUEUE_PREFIX), as two pods behind a load
 * balancer: every request alternates between them, and the budget is one.
 */
describe('rate limits shared by two instances on one Redis', () => {
  const CREDENTIAL_PER_S = 4;
  let a: TestApp;
  let b: TestApp;
  let ws: SeededWorkspace;
  const prefix = `t${randomToken(8)}`;
  const both = () => [a, b];

  beforeAll(async () => {
    const limits = {
      queuePrefix: prefix,
      // These tests read every count's headers: a count must not fail open because a loaded
      // machine answered late (the outage test below keeps the default).
      rateLimitRedisTimeoutMs: 5_000,
      rateLimitCredentialPerSecond: CREDENTIAL_PER_S,
      rateLimitPublicPerSecond: 3,
      rateLimitPublicBurst: 3,
    };
    a = await startApp(limits);
    b = await startApp(limits);
    ws = await seedWorkspace(a);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('exhausts one credential budget across both instances: 429 too_many_requests with Retry-After and limit headers', async () => {
    const get = (t: TestApp) =>
      request(t.url).get('/v1/pay/sellers').set('Authorization', `Bearer ${ws.seller.credential}`);
    const remaining: string[] = [];
    for (let i = 0; i < CREDENTIAL_PER_S; i++) {
      const res = await get(both()[i % 2]);
      expect(res.status).toBe(200);
      expect(limitHeaders(res)).toMatchObject({
        limit: String(CREDENTIAL_PER_S),
        policy: `${CREDENTIAL_PER_S};w=1`,
      });
      expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
      remaining.push(res.headers['ratelimit-remaining']);
    }
    // One counter: each instance saw only two requests, yet the budget counts all four.
    expect(remaining).toEqual(['3', '2', '1', '0']);
    for (const t of both()) {
      const res = await get(t);
      expect(res.status).toBe(429);
      expect(res.body.error).toMatchObject({
        type: 'rate_limit_exceeded',
        code: 'too_many_requests',
      });
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(limitHeaders(res)).toMatchObject({
        limit: String(CREDENTIAL_PER_S),
        remaining: '0',
        reset: res.headers['retry-after'],
      });
    }
  });

  it('gives every credential its own budget, whatever its kind', async () => {
    const seller = ws.seller.credential;
    let status = 0;
    for (let i = 0; i <= 2 * CREDENTIAL_PER_S && status !== 429; i++) {
      status = (
        await request(both()[i % 2].url)
          .get('/v1/pay/sellers')
          .set('Authorization', `Bearer ${seller}`)
      ).status;
    }
    expect(status).toBe(429);
    // Same workspace, other credentials: agent, API key, protocol key, person session.
    const buyer = await request(b.url)
      .get('/v1/pay/sellers')
      .set('Authorization', `Bearer ${ws.buyer.credential}`);
    expect(buyer.status).toBe(200);
    expect(limitHeaders(buyer)).toMatchObject({ remaining: String(CREDENTIAL_PER_S - 1) });
    const apiKey = await request(a.url)
      .get('/v1/events')
      .set('Authorization', `Bearer ${ws.apiKey}`);
    expect(apiKey.status).toBe(200);
    expect(limitHeaders(apiKey)).toMatchObject({ remaining: String(CREDENTIAL_PER_S - 1) });
    const session = await signIn(a, ws.email, ws.password);
    const page = await request(b.url).get('/app/consent').set('Cookie', session.cookie);
    expect(page.status).toBe(200);
    expect(limitHeaders(page)).toMatchObject({
      limit: String(CREDENTIAL_PER_S),
      remaining: String(CREDENTIAL_PER_S - 1),
    });
  });

  it('limits a protocol key on /acp with the flat ACP error, and sends the headers on error answers too', async () => {
    const get = (t: TestApp) =>
      request(t.url).get('/acp/checkout_sessions/cs_missing').set(acpHeaders(ws.merchantKey));
    for (let i = 0; i < CREDENTIAL_PER_S; i++) {
      const res = await get(both()[i % 2]);
      expect(res.status).toBe(404);
      expect(limitHeaders(res)).toMatchObject({
        limit: String(CREDENTIAL_PER_S),
        remaining: String(CREDENTIAL_PER_S - 1 - i),
      });
    }
    const res = await get(b);
    expect(res.status).toBe(429);
    // The checkout Error.type enum has no rate_limit_exceeded: /acp checkout says service_unavailable
    // (docs/acp.md §7); the code stays too_many_requests.
    expect(res.body).toMatchObject({ type: 'service_unavailable', code: 'too_many_requests' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('counts again from zero once the window has passed', async () => {
    const cred = ws.buyer.credential;
    const get = (t: TestApp) =>
      request(t.url).get('/v1/pay/sellers').set('Authorization', `Bearer ${cred}`);
    await sleep(1100); // the buyer's window from the previous test is over
    for (let i = 0; i < CREDENTIAL_PER_S; i++) {
      expect((await get(both()[i % 2])).status).toBe(200);
    }
    const blocked = await get(a);
    expect(blocked.status).toBe(429);
    await sleep(Number(blocked.headers['retry-after']) * 1000 + 100);
    const again = await get(b);
    expect(again.status).toBe(200);
    expect(limitHeaders(again)).toMatchObject({ remaining: String(CREDENTIAL_PER_S - 1) });
  });

  it('limits public routes per client address across both instances', async () => {
    // trust proxy is loopback, so a local proxy's X-Forwarded-For is the client address.
    const from = (t: TestApp, ip: string) =>
      request(t.url).get('/.well-known/acp.json').set('X-Forwarded-For', ip);
    const ip = '203.0.113.7';
    for (let i = 0; i < 3; i++) {
      const res = await from(both()[i % 2], ip);
      expect(res.status).toBe(200);
      expect(limitHeaders(res)).toMatchObject({
        limit: '3',
        remaining: String(2 - i),
        policy: '3;w=1',
      });
    }
    const blocked = await from(b, ip);
    expect(blocked.status).toBe(429);
    expect(blocked.body.error).toMatchObject({
      type: 'rate_limit_exceeded',
      code: 'too_many_requests',
    });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limitHeaders(blocked)).toMatchObject({ limit: '3', remaining: '0' });
    // Other public routes share the address's budget; another address has its own.
    expect(
      (await request(a.url).get('/.well-known/jwks.json').set('X-Forwarded-For', ip)).status,
    ).toBe(429);
    expect((await from(a, '203.0.113.8')).status).toBe(200);
  });

  it("keeps the counters in Redis under the instances' prefix, keyed by id, never by secret", async () => {
    await request(a.url)
      .get('/v1/pay/sellers')
      .set('Authorization', `Bearer ${ws.seller.credential}`);
    await request(b.url).get('/acp/checkout_sessions/cs_missing').set(acpHeaders(ws.merchantKey));
    const redis = new Redis(TEST_REDIS_URL);
    try {
      const keys = await redis.keys(`{${prefix}:rl:*`);
      expect(keys).toEqual(
        expect.arrayContaining([`{${prefix}:rl:agent:${ws.seller.id}:credential}:hits`]),
      );
      expect(keys).toEqual(
        expect.arrayContaining([`{${prefix}:rl:protocol_key:${ws.merchantKeyId}:credential}:hits`]),
      );
      expect(keys.join('\n')).not.toContain(ws.seller.credential);
      expect(keys.join('\n')).not.toContain(ws.apiKey);
    } finally {
      redis.disconnect();
    }
  });
  it('sends each hit as the script digest (EVALSHA), and keeps counting after Redis forgets its scripts', async () => {
    const redis = new Redis(TEST_REDIS_URL);
    const get = (t: TestApp) =>
      request(t.url).get('/v1/pay/sellers').set('Authorization', `Bearer ${ws.apiKey}`);
    // The limiter's connection of one instance, by the name it gives itself, and the last command it sent.
    const lastCommand = async (): Promise<string[]> => {
      const list = (await redis.client('LIST')) as string;
      return list
        .split('\n')
        .filter((line) => line.includes(` name=${prefix}:rate-limit `))
        .map((line) => /\bcmd=(\S+)/.exec(line)?.[1] ?? '');
    };
    try {
      await sleep(1100); // a fresh window for the workspace's API key
      expect((await get(a)).status).toBe(200);
      expect((await get(a)).headers['ratelimit-remaining']).toBe(String(CREDENTIAL_PER_S - 2));
      expect(await lastCommand()).toContain('evalsha');
      // After SCRIPT FLUSH (a Redis restart does the same) the next hit is sent again in full,
      // once, and counts in the same window.
      await redis.script('FLUSH');
      const after = await get(b);
      expect(after.status).toBe(200);
      expect(after.headers['ratelimit-remaining']).toBe(String(CREDENTIAL_PER_S - 3));
    } finally {
      redis.disconnect();
    }
  });
});

describe('rate limits when Redis is down', () => {
  let t: TestApp;

  beforeAll(async () => {
    // Nothing listens on port 1: every count fails, and the service must still answer.
    t = await startApp({
      redisUrl: 'redis://127.0.0.1:1',
      runWorkers: false,
      rateLimitPublicPerSecond: 1,
      rateLimitPublicBurst: 1,
    });
  });
  afterAll(() => t.close());

  it('fails open: requests go through, without limit headers', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await request(t.url).get('/.well-known/acp.json');
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
  });
});
