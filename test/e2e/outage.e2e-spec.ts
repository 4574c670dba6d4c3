import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { AddressInfo, createServer, Server, Socket } from 'node:net';

import { Client } from 'pg';
import request from 'supertest';

import { OUTAGE_RETRY_AFTER_SECONDS } from '../../src/common/errors/outage';
import { POOL_WAIT_MS } from '../../src/database/data-source-options';
import { csrfFieldOf, signIn } from '../factories/app-session.factory';
import { createOffer } from '../factories/offer.factory';
import { startApp, TestApp, testDatabaseUrl } from '../support/app';
import { ProbeController } from '../support/probe.controller';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * Backing services going away for real, no mocks: Postgres stops accepting connections to this
 * file's database (ALLOW_CONNECTIONS false + every backend terminated, from a separate admin
 * connection), and a private redis-server is killed. Every route that needs the missing service
 * answers 503 service_unavailable with Retry-After, promptly; once the service is back the same
 * app (no restart) serves the same routes again.
 */

const RETRY_AFTER = String(OUTAGE_RETRY_AFTER_SECONDS);
/** A 503 must come back well before the pool's wait limit (5 s): refused connections fail at once. */
const PROMPT_MS = 2500;

interface Probe {
  name: string;
  /** Body shape of a 503: flat ACP error, {"error": …} on /v1, an HTML page under /app, health's own. */
  kind: 'acp' | 'v1' | 'html' | 'health';
  ok: number;
  send(): Promise<request.Response>;
}

function cookiesOf(res: request.Response): string[] {
  const raw = res.headers['set-cookie'] as unknown;
  return Array.isArray(raw) ? (raw as string[]) : typeof raw === 'string' ? [raw] : [];
}

function expectUnavailable(p: Probe, res: request.Response, elapsedMs: number): void {
  expect({ route: p.name, status: res.status, retryAfter: res.headers['retry-after'] }).toEqual({
    route: p.name,
    status: 503,
    retryAfter: RETRY_AFTER,
  });
  expect(elapsedMs).toBeLessThan(PROMPT_MS);
  switch (p.kind) {
    case 'acp':
      expect(res.body).toEqual({
        type: 'service_unavailable',
        code: 'service_unavailable',
        message: expect.stringContaining('temporarily unavailable') as unknown,
      });
      expect(res.headers['cache-control']).toBe('no-store');
      break;
    case 'v1':
      expect(res.body).toEqual({
        error: {
          type: 'service_unavailable',
          code: 'service_unavailable',
          message: expect.stringContaining('temporarily unavailable') as unknown,
          request_id: res.headers['request-id'],
        },
      });
      expect(res.headers['cache-control']).toBe('no-store');
      break;
    case 'html':
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.text).toContain('Temporarily unavailable');
      expect(res.text).toContain('try again in a few seconds');
      expect(res.text).toContain('service_unavailable');
      expect(res.text).not.toMatch(/ECONN|SQLSTATE|57P01|55000|accepting connections/);
      break;
    case 'health':
      expect(res.body).toMatchObject({ status: 'degraded' });
      break;
  }
}

describe('Postgres outage', () => {
  let t: TestApp;
  let admin: Client;
  let dbName: string;
  let ws: SeededWorkspace;
  let session: string;
  let login: { cookie: string; csrf: string };
  let sku: string;

  async function pausePostgres(): Promise<void> {
    await admin.query(`ALTER DATABASE "${dbName}" WITH ALLOW_CONNECTIONS false`);
    await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [dbName],
    );
  }

  async function resumePostgres(): Promise<void> {
    await admin.query(`ALTER DATABASE "${dbName}" WITH ALLOW_CONNECTIONS true`);
  }

  beforeAll(async () => {
    t = await startApp({}, { controllers: [ProbeController] });
    dbName = decodeURIComponent(new URL(t.config.databaseUrl).pathname.slice(1));
    const adminUrl = new URL(t.config.databaseUrl);
    adminUrl.pathname = '/postgres';
    admin = new Client({ connectionString: adminUrl.toString() });
    await admin.connect();
    ws = await seedWorkspace(t);
    sku = (await createOffer(t, ws.seller.id)).sku;
    session = (await signIn(t, ws.email, ws.password)).cookie;
    const form = await request(t.url).get('/app/login').expect(200);
    login = {
      cookie: cookiesOf(form)
        .find((c) => c.startsWith('svc_csrf='))!
        .split(';')[0],
      csrf: csrfFieldOf(form.text),
    };
  });

  afterAll(async () => {
    await resumePostgres(); // whatever happened, leave the database usable for teardown
    await admin.end();
    await t.close();
  });

  function probes(): Probe[] {
    const v1 = { Authorization: `Bearer ${ws.apiKey}` };
    return [
      {
        name: 'GET /v1/pay/protocol-keys (API key)',
        kind: 'v1',
        ok: 200,
        send: () => request(t.url).get('/v1/pay/protocol-keys').set(v1),
      },
      {
        name: 'POST /v1/pay/protocol-keys (API key)',
        kind: 'v1',
        ok: 201,
        send: () =>
          request(t.url)
            .post('/v1/pay/protocol-keys')
            .set({ ...v1, 'Idempotency-Key': randomUUID() })
            .send({ role: 'merchant', agent_id: ws.seller.id }),
      },
      {
        name: 'POST /acp/checkout_sessions (protocol key)',
        kind: 'acp',
        ok: 201,
        send: () =>
          request(t.url)
            .post('/acp/checkout_sessions')
            .set(acpHeaders(ws.merchantKey, randomUUID()))
            .send({ line_items: [{ id: sku, quantity: 1 }], currency: 'inr', capabilities: {} }),
      },
      {
        name: 'POST /mcp (agent credential)',
        kind: 'v1',
        ok: 200,
        send: () =>
          request(t.url)
            .post('/mcp')
            .set({
              Authorization: `Bearer ${ws.seller.credential}`,
              Accept: 'application/json, text/event-stream',
            })
            .send({
              jsonrpc: '2.0',
              id: 1,
              method: 'initialize',
              params: {
                protocolVersion: '2025-06-18',
                capabilities: {},
                clientInfo: { name: 't', version: '1' },
              },
            }),
      },
      {
        name: 'GET /.well-known/jwks.json (public)',
        kind: 'v1',
        ok: 200,
        send: () => request(t.url).get('/.well-known/jwks.json'),
      },
      {
        name: 'GET /app (signed-in page)',
        kind: 'html',
        ok: 200,
        send: () => request(t.url).get('/app').set('Cookie', session),
      },
      {
        name: 'POST /app/login (form)',
        kind: 'html',
        ok: 303,
        send: () =>
          request(t.url)
            .post('/app/login')
            .set('Cookie', login.cookie)
            .type('form')
            .send({ _csrf: login.csrf, email: ws.email, password: ws.password }),
      },
      {
        name: 'GET /health',
        kind: 'health',
        ok: 200,
        send: () => request(t.url).get('/health'),
      },
    ];
  }

  it('serves every probe before the outage', async () => {
    for (const p of probes()) {
      const res = await p.send();
      expect({ route: p.name, status: res.status }).toEqual({ route: p.name, status: p.ok });
    }
  });

  it('answers 503 + Retry-After on every route that needs Postgres, then recovers without a restart', async () => {
    await pausePostgres();
    try {
      for (const p of probes()) {
        const t0 = Date.now();
        const res = await p.send();
        expectUnavailable(p, res, Date.now() - t0);
      }
      const health = await request(t.url).get('/health');
      expect(health.body.checks).toEqual({ postgres: 'down', redis: 'ok' });
      // Routes that need no database keep serving.
      await request(t.url).get('/.well-known/acp.json').expect(200);
      await request(t.url).get('/app/login').expect(200);
    } finally {
      await resumePostgres();
    }

    // Same process, same pool: the very next requests succeed.
    for (const p of probes()) {
      const res = await p.send();
      expect({ route: p.name, status: res.status }).toEqual({ route: p.name, status: p.ok });
    }
    const health = await request(t.url).get('/health').expect(200);
    expect(health.body.checks).toEqual({ postgres: 'ok', redis: 'ok' });
    expect(health.headers['retry-after']).toBeUndefined();
  });

  it('a connection killed mid-transaction (idempotency interceptor) is a 503 and writes nothing', async () => {
    const note = `outage-${randomUUID()}`;
    const key = randomUUID();
    // The probe inserts an audit row inside the request's transaction, then waits 700 ms.
    const pending = request(t.url)
      .post('/acp/_probe')
      .set(acpHeaders(ws.merchantKey, key))
      .send({ note, mode: 'slow' })
      .then((r) => r);
    // Wait until the request's transaction is open and idle (the insert done, the handler sleeping).
    let pid: number | undefined;
    for (let i = 0; i < 100 && pid === undefined; i++) {
      const rows = await admin.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND state = 'idle in transaction' AND query LIKE '%audit_events%'`,
        [dbName],
      );
      pid = rows.rows[0]?.pid;
      if (pid === undefined) {
        await new Promise((r) => setTimeout(r, 10));
      }
    }
    expect(pid).toBeDefined();
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);

    const res = await pending;
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe(RETRY_AFTER);
    expect(res.body).toMatchObject({ type: 'service_unavailable', code: 'service_unavailable' });
    const written = await t.db.query<unknown[]>(
      `SELECT 1 FROM audit_events WHERE data->>'note' = $1`,
      [note],
    );
    expect(written).toHaveLength(0);

    // The key was not stored (5xx never is): the same request now runs and succeeds.
    const again = await request(t.url)
      .post('/acp/_probe')
      .set(acpHeaders(ws.merchantKey, key))
      .send({ note, mode: 'ok' });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
  });
});

/**
 * A TCP proxy in front of Postgres, so the app can see the server vanish the two other ways:
 * 'down' (every connection reset, new ones refused: a stopped or crashed server) and 'blackhole'
 * (connections accepted, nothing ever answered: a partitioned host, where only the pool's
 * connection timeout stops a request from hanging).
 */
class PgProxy {
  port = 0;
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly target: { host: string; port: number }) {}

  async start(mode: 'forward' | 'blackhole'): Promise<void> {
    const server = createServer((client) => {
      this.track(client);
      if (mode === 'blackhole') {
        return; // accept and stay silent
      }
      const upstream = new Socket();
      this.track(upstream);
      upstream.connect(this.target.port, this.target.host);
      client.pipe(upstream).pipe(client);
      const drop = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Resets every open connection and stops listening (new connections are refused). */
  async stop(): Promise<void> {
    for (const s of this.sockets) {
      s.resetAndDestroy();
    }
    this.sockets.clear();
    const server = this.server;
    this.server = null;
    if (server) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  private track(s: Socket): void {
    this.sockets.add(s);
    s.on('close', () => this.sockets.delete(s));
    s.on('error', () => undefined);
  }
}

describe('Postgres unreachable (server gone, host black-holed)', () => {
  let t: TestApp;
  let proxy: PgProxy;
  let ws: SeededWorkspace;

  beforeAll(async () => {
    const real = new URL(await testDatabaseUrl());
    proxy = new PgProxy({ host: real.hostname, port: Number(real.port || 5432) });
    await proxy.start('forward');
    const viaProxy = new URL(real.toString());
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    t = await startApp({ databaseUrl: viaProxy.toString() });
    ws = await seedWorkspace(t);
  });

  afterAll(async () => {
    await proxy.stop();
    await proxy.start('forward');
    await t.close();
    await proxy.stop();
  });

  const v1Get = () =>
    request(t.url).get('/v1/pay/protocol-keys').set('Authorization', `Bearer ${ws.apiKey}`);
  const v1Post = () =>
    request(t.url)
      .post('/v1/pay/protocol-keys')
      .set({ Authorization: `Bearer ${ws.apiKey}`, 'Idempotency-Key': randomUUID() })
      .send({ role: 'merchant', agent_id: ws.seller.id });

  it('server gone (connections reset, then refused): 503 at once; back when it returns', async () => {
    await v1Get().expect(200);
    await proxy.stop();
    for (const send of [v1Get, v1Post]) {
      const t0 = Date.now();
      const res = await send();
      expect(Date.now() - t0).toBeLessThan(PROMPT_MS);
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe(RETRY_AFTER);
      expect(res.body.error).toMatchObject({
        type: 'service_unavailable',
        code: 'service_unavailable',
      });
    }
    expect((await request(t.url).get('/health')).status).toBe(503);

    await proxy.start('forward'); // same port: Postgres is back
    await v1Get().expect(200);
    await v1Post().expect(201);
    await request(t.url).get('/health').expect(200);
  });

  it('host black-holed: requests give up after the pool wait and answer 503, none hangs', async () => {
    await proxy.stop();
    await proxy.start('blackhole');
    const t0 = Date.now();
    const [health, ...answers] = await Promise.all([
      request(t.url).get('/health'),
      v1Get(),
      v1Post(),
      request(t.url)
        .post('/acp/checkout_sessions')
        .set(acpHeaders(ws.merchantKey, randomUUID()))
        .send({}),
    ]);
    const elapsed = Date.now() - t0;
    expect(health.status).toBe(503);
    expect(health.body.checks.postgres).toBe('down');
    for (const res of answers) {
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe(RETRY_AFTER);
    }
    expect(elapsed).toBeLessThan(POOL_WAIT_MS + 2000);

    await proxy.stop();
    await proxy.start('forward');
    await v1Get().expect(200);
    await v1Post().expect(201);
  }, 20_000);
});

describe('Redis outage', () => {
  let port: number;
  let redis: ChildProcess | undefined;
  let t: TestApp;
  let ws: SeededWorkspace;

  async function freePort(): Promise<number> {
    const srv = createServer();
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    const p = (srv.address() as AddressInfo).port;
    await new Promise<void>((resolve) => srv.close(() => resolve()));
    return p;
  }

  async function startRedis(): Promise<void> {
    const proc = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'no',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    redis = proc;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('redis-server did not start')), 5000);
      proc.stdout.on('data', (d: Buffer) => {
        if (d.toString().includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      proc.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
    });
  }

  async function stopRedis(): Promise<void> {
    const proc = redis;
    redis = undefined;
    if (proc && proc.exitCode === null) {
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      proc.kill('SIGTERM');
      await exited;
    }
  }

  async function waitFor(what: string, check: () => Promise<boolean>, ms = 10_000): Promise<void> {
    const until = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > until) {
        throw new Error(`timed out waiting for ${what}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  beforeAll(async () => {
    port = await freePort();
    await startRedis();
    t = await startApp({ redisUrl: `redis://127.0.0.1:${port}` });
    ws = await seedWorkspace(t);
  });

  afterAll(async () => {
    if (!redis) {
      await startRedis(); // Bull closes cleanly only with Redis there
    }
    await t.close();
    await stopRedis();
  });

  it('only /health needs Redis synchronously: it answers 503 + Retry-After at once; the API keeps serving', async () => {
    await request(t.url).get('/health').expect(200);
    await stopRedis();

    const t0 = Date.now();
    const health = await request(t.url).get('/health');
    expect(Date.now() - t0).toBeLessThan(PROMPT_MS);
    expect(health.status).toBe(503);
    expect(health.headers['retry-after']).toBe(RETRY_AFTER);
    expect(health.body).toMatchObject({
      status: 'degraded',
      checks: { postgres: 'ok', redis: 'down' },
    });

    // Writes commit in Postgres; queue wake-ups are after-commit and fire-and-forget.
    const key = await request(t.url)
      .post('/v1/pay/protocol-keys')
      .set({ Authorization: `Bearer ${ws.apiKey}`, 'Idempotency-Key': randomUUID() })
      .send({ role: 'merchant', agent_id: ws.seller.id });
    expect(key.status).toBe(201);
    const sku = (await createOffer(t, ws.seller.id)).sku;
    const created = await request(t.url)
      .post('/acp/checkout_sessions')
      .set(acpHeaders(ws.merchantKey, randomUUID()))
      .send({ line_items: [{ id: sku, quantity: 1 }], currency: 'inr', capabilities: {} });
    expect(created.status).toBe(201);
    await request(t.url)
      .get('/v1/pay/protocol-keys')
      .set('Authorization', `Bearer ${ws.apiKey}`)
      .expect(200);

    // Rate-limited public routes fail open while their Redis counters are away.
    await request(t.url).get('/.well-known/acp.json').expect(200);

    await startRedis();
    await waitFor(
      'health after Redis returns',
      async () => (await request(t.url).get('/health')).status === 200,
    );
  });
});
