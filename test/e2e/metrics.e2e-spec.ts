import { generateKeyPairSync, randomUUID } from 'node:crypto';
import http from 'node:http';
import { AddressInfo } from 'node:net';

import request from 'supertest';

import { ApprovalsService } from '../../src/approvals/approvals.service';
import { QUEUES } from '../../src/common/queues/queues';
import { Tx } from '../../src/database/tx';
import { BusinessMetrics } from '../../src/metrics/business-metrics';
import { METRICS, QUEUE_JOB_STATES } from '../../src/metrics/metric-names';
import { bearer, payFreeFormQuote } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { startApp, TestApp } from '../support/app';
import { Scrape, scrape } from '../support/prometheus';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * GET /metrics scraped over HTTP from the real app and parsed with the Prometheus text parser
 * (parse-prometheus-text-format). Business counters are checked against what the database holds
 * after real payments, refunds and webhook deliveries; gauges against the rows they summarise.
 */

async function waitFor<T>(what: string, fn: () => Promise<T | null | undefined | false>) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const v = await fn();
    if (v) {
      return v;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The payments counters of one scrape, to compare before and after. */
function payments(s: Scrape) {
  const p = METRICS.payments.name;
  const a = METRICS.paymentAmount.name;
  return {
    settled: s.value(p, { outcome: 'settled', reason: 'none' }),
    waiting: s.value(p, { outcome: 'requires_approval', reason: 'none' }),
    capExceeded: s.value(p, { outcome: 'declined', reason: 'mandate_cap_exceeded' }),
    denied: s.value(p, { outcome: 'declined', reason: 'approval_denied' }),
    insufficientFunds: s.value(p, { outcome: 'failed', reason: 'insufficient_funds' }),
    settledPaise: s.value(a, { outcome: 'settled' }),
    waitingPaise: s.value(a, { outcome: 'requires_approval' }),
    declinedPaise: s.value(a, { outcome: 'declined' }),
    failedPaise: s.value(a, { outcome: 'failed' }),
  };
}

describe('GET /metrics', () => {
  let t: TestApp;
  let seller: SeededWorkspace;
  let buyer: SeededWorkspace;
  let mandateId: string;

  beforeAll(async () => {
    // No sweeper: the outbox keeps what it is given, so its lag can be read.
    t = await startApp({ runWorkers: false });
    seller = await seedWorkspace(t);
    buyer = await seedWorkspace(t);
    // ₹10,000 per payment.
    mandateId = await createMandate(t, { workspaceId: buyer.workspaceId, agentId: buyer.buyer.id });
  });
  afterAll(() => t.close());
  afterEach(() => t.clock.reset());

  const pay = (amountPaise: number) =>
    payFreeFormQuote(t, { seller: seller.seller, buyer: buyer.buyer, mandateId, amountPaise });

  it('serves the Prometheus text format: every family typed and documented, our names and the process metrics', async () => {
    const res = await request(t.url).get('/metrics').expect(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    const s = await scrape(t);
    for (const family of s.families.values()) {
      expect(family.help.length).toBeGreaterThan(0);
      expect(['COUNTER', 'GAUGE', 'HISTOGRAM', 'SUMMARY']).toContain(family.type);
    }
    const ours = Object.values(METRICS);
    for (const m of ours) {
      const family = s.families.get(m.name);
      expect({ name: m.name, type: family?.type }).toEqual({
        name: m.name,
        type: m.name.endsWith('_total') ? 'COUNTER' : 'buckets' in m ? 'HISTOGRAM' : 'GAUGE',
      });
    }
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
      'nodejs_active_handles_total',
    ]) {
      expect(s.families.has(name)).toBe(true);
    }
  });

  it('labels HTTP requests by route template, method and status: ids and unknown paths never become labels', async () => {
    const id = `pi_${randomUUID().replace(/-/g, '')}`;
    await request(t.url)
      .get(`/v1/pay/intents/${id}`)
      .set(bearer(buyer.buyer.credential))
      .expect(404);
    await request(t.url)
      .get(`/v1/pay/intents/${id}`)
      .set(bearer(buyer.buyer.credential))
      .expect(404);
    await request(t.url).get(`/no/such/${id}`).expect(404);
    await request(t.url).post(`/app/${id}`).expect(404);
    await request(t.url).get('/health').expect(200);
    const s = await scrape(t);
    const name = METRICS.httpRequests.name;
    expect(s.value(name, { route: '/v1/pay/intents/:id', method: 'GET', status: '404' })).toBe(2);
    expect(
      s.value(name, { route: 'unmatched', method: 'GET', status: '404' }),
    ).toBeGreaterThanOrEqual(1);
    expect(s.value(name, { route: '/app/*path', method: 'POST', status: '404' })).toBe(1);
    expect(
      s.value(name, { route: '/health', method: 'GET', status: '200' }),
    ).toBeGreaterThanOrEqual(1);
    const latency = s.histogram(METRICS.httpDuration.name, {
      route: '/v1/pay/intents/:id',
      method: 'GET',
      status: '404',
    });
    expect(latency.count).toBe(2);
    expect(latency.sum).toBeGreaterThan(0);
    expect(s.text).not.toContain(id);
    const routes = new Set(s.families.get(name)!.metrics.map((m) => m.labels!.route));
    for (const route of routes) {
      expect(route).toMatch(/^(unmatched|\/[\w/:*.{}-]*)$/);
    }
  });

  it('counts payments by outcome (declines by reason) with their amounts, once each, when they commit', async () => {
    const before = payments(await scrape(t));
    expect((await pay(45_000)).intent.status).toBe('settled');
    expect((await pay(45_051)).intent.status).toBe('failed'); // sandbox rail: …51 = insufficient funds
    const waiting = await pay(350_000);
    expect(waiting.intent.status).toBe('requires_approval');
    expect((await pay(1_500_000)).intent.status).toBe('declined'); // above the ₹10,000 mandate cap
    const denied = await pay(250_000);
    await t
      .get(ApprovalsService)
      .decide(buyer.workspaceId, denied.intent.approval_id!, buyer.personId, 'denied');
    await t
      .get(ApprovalsService)
      .decide(buyer.workspaceId, waiting.intent.approval_id!, buyer.personId, 'approved');
    const after = payments(await scrape(t));
    expect({
      settled: after.settled - before.settled,
      waiting: after.waiting - before.waiting,
      capExceeded: after.capExceeded - before.capExceeded,
      denied: after.denied - before.denied,
      insufficientFunds: after.insufficientFunds - before.insufficientFunds,
      settledPaise: after.settledPaise - before.settledPaise,
      waitingPaise: after.waitingPaise - before.waitingPaise,
      declinedPaise: after.declinedPaise - before.declinedPaise,
      failedPaise: after.failedPaise - before.failedPaise,
    }).toEqual({
      settled: 2, // ₹450 at once, ₹3,500 once approved
      waiting: 2,
      capExceeded: 1,
      denied: 1,
      insufficientFunds: 1,
      settledPaise: 45_000 + 350_000,
      waitingPaise: 350_000 + 250_000,
      declinedPaise: 1_500_000 + 250_000,
      failedPaise: 45_051,
    });
    // The same facts in the database.
    const rows = await t.db.query<{ id: string; status: string; decline_code: string | null }[]>(
      `SELECT id, status, decline_code FROM payment_intents WHERE buyer_agent_id = $1 AND id = ANY($2)`,
      [buyer.buyer.id, [waiting.intent.id, denied.intent.id]],
    );
    expect(Object.fromEntries(rows.map((r) => [r.id, [r.status, r.decline_code]]))).toEqual({
      [waiting.intent.id]: ['settled', null],
      [denied.intent.id]: ['declined', 'approval_denied'],
    });
  });

  it('counts nothing for an outcome whose transaction rolls back, and once for one that commits', async () => {
    const metrics = t.get(BusinessMetrics);
    const tx = t.get(Tx);
    const facts = { status: 'declined', declineCode: 'rolled_back_probe', amountPaise: 100 };
    const series = { outcome: 'declined', reason: 'rolled_back_probe' };
    await expect(
      tx.run(async (m) => {
        await m.query('SELECT 1');
        metrics.payment(facts);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await tx.run(async (m) => {
      await m.query('SELECT 1');
      await tx
        .savepoint('probe', async () => {
          metrics.payment(facts);
          throw new Error('back to the savepoint');
        })
        .catch(() => undefined);
    });
    expect((await scrape(t)).value(METRICS.payments.name, series)).toBe(0);
    await tx.run(async () => metrics.payment(facts));
    expect((await scrape(t)).value(METRICS.payments.name, series)).toBe(1);
  });

  it('reports approvals waiting and the age of the oldest, by kind, as the database holds them', async () => {
    const waiting = await pay(300_000);
    expect(waiting.intent.status).toBe('requires_approval');
    const [{ n }] = await t.db.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM approvals WHERE status = 'pending' AND kind = 'payment'`,
    );
    t.clock.advance(600_000);
    const s = await scrape(t);
    expect(s.value(METRICS.approvalsWaiting.name, { kind: 'payment' })).toBe(n);
    expect(s.value(METRICS.approvalsWaiting.name, { kind: 'refund' })).toBe(0);
    expect(s.value(METRICS.approvalsOldestAge.name, { kind: 'payment' })).toBeGreaterThanOrEqual(
      600,
    );
    expect(s.value(METRICS.approvalsOldestAge.name, { kind: 'refund' })).toBe(0);
    // The expiry job of each waiting approval sits delayed in the approvals queue.
    expect(
      s.value(METRICS.queueJobs.name, { queue: 'approvals', state: 'delayed' }),
    ).toBeGreaterThanOrEqual(1);
    await t
      .get(ApprovalsService)
      .decide(buyer.workspaceId, waiting.intent.approval_id!, buyer.personId, 'denied');
    expect((await scrape(t)).value(METRICS.approvalsWaiting.name, { kind: 'payment' })).toBe(n - 1);
  });

  it('counts refund state changes with their amounts as they commit', async () => {
    const refunds = (s: Scrape, state: string) => [
      s.value(METRICS.refunds.name, { state }),
      s.value(METRICS.refundAmount.name, { state }),
    ];
    const before = await scrape(t);
    const paid = await pay(20_000);
    const asked = await request(t.url)
      .post(`/v1/pay/intents/${paid.intent.id}/refunds`)
      .set({ ...bearer(seller.seller.credential), 'Idempotency-Key': randomUUID() })
      .send({ amount_paise: 5_000 })
      .expect(201);
    const middle = await scrape(t);
    expect(middle.value(METRICS.approvalsWaiting.name, { kind: 'refund' })).toBe(1);
    await t
      .get(ApprovalsService)
      .decide(seller.workspaceId, asked.body.approval_id as string, seller.personId, 'approved');
    const after = await scrape(t);
    const [reqBefore, reqPaiseBefore] = refunds(before, 'requested');
    const [okBefore, okPaiseBefore] = refunds(before, 'succeeded');
    expect(refunds(middle, 'requested')).toEqual([reqBefore + 1, reqPaiseBefore + 5_000]);
    expect(refunds(middle, 'succeeded')).toEqual([okBefore, okPaiseBefore]);
    expect(refunds(after, 'succeeded')).toEqual([okBefore + 1, okPaiseBefore + 5_000]);
    expect(after.value(METRICS.approvalsWaiting.name, { kind: 'refund' })).toBe(0);
    const [row] = await t.db.query<{ status: string }[]>(
      'SELECT status FROM refunds WHERE id = $1',
      [asked.body.id],
    );
    expect(row.status).toBe('succeeded');
  });

  it('reports the outbox lag: undispatched events and the age of the oldest', async () => {
    await pay(10_000); // writes intent.settled; nothing dispatches in this app
    const [{ n }] = await t.db.query<{ n: number }[]>(
      'SELECT count(*)::int AS n FROM outbox_pending',
    );
    expect(n).toBeGreaterThanOrEqual(1);
    t.clock.advance(120_000);
    const s = await scrape(t);
    expect(s.value(METRICS.outboxUndispatched.name)).toBe(n);
    expect(s.value(METRICS.outboxLag.name)).toBeGreaterThanOrEqual(120);
  });

  it('reports every queue by job state, the database pool, and that both sources answered', async () => {
    const s = await scrape(t);
    for (const queue of Object.values(QUEUES)) {
      for (const state of QUEUE_JOB_STATES) {
        expect(s.families.get(METRICS.queueJobs.name)!.metrics).toContainEqual({
          value: expect.any(String),
          labels: { queue, state },
        });
      }
    }
    expect(s.value(METRICS.dbPoolMax.name)).toBe(t.config.databasePoolMax);
    const idle = s.value(METRICS.dbPoolConnections.name, { state: 'idle' });
    const busy = s.value(METRICS.dbPoolConnections.name, { state: 'busy' });
    expect(idle + busy).toBeGreaterThanOrEqual(1);
    expect(idle + busy).toBeLessThanOrEqual(t.config.databasePoolMax);
    expect(s.value(METRICS.dbPoolWaiting.name)).toBe(0);
    expect(s.value(METRICS.collectorUp.name, { source: 'postgres' })).toBe(1);
    expect(s.value(METRICS.collectorUp.name, { source: 'redis' })).toBe(1);
  });
});

interface Receiver {
  url: string;
  hits: number;
  close(): Promise<void>;
}

/** A webhook receiver answering `statuses[n]` to its n-th request (the last one after that). */
async function receiver(statuses: number[]): Promise<Receiver> {
  const r: Receiver = { url: '', hits: 0, close: async () => undefined };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const status = statuses[Math.min(r.hits, statuses.length - 1)];
      r.hits += 1;
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  r.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return r;
}

describe('GET /metrics: webhook deliveries', () => {
  let t: TestApp;
  let buyer: SeededWorkspace;
  let mandateId: string;

  beforeAll(async () => {
    t = await startApp({ webhookRetryScheduleMs: [50, 100], webhookDispatchIntervalMs: 50 });
    buyer = await seedWorkspace(t);
    mandateId = await createMandate(t, { workspaceId: buyer.workspaceId, agentId: buyer.buyer.id });
  });
  afterAll(() => t.close());

  /** A seller workspace of its own per test, with endpoints at these URLs; pays it once and waits for every delivery to finish. */
  async function deliverOnePayment(urls: string[]) {
    const seller = await seedWorkspace(t);
    const endpointIds: string[] = [];
    for (const url of urls) {
      const res = await request(t.url)
        .post('/v1/webhooks/endpoints')
        .set(bearer(seller.apiKey))
        .send({ url, event_types: ['intent.settled'] })
        .expect(201);
      endpointIds.push(res.body.id as string);
    }
    const paid = await payFreeFormQuote(t, {
      seller: seller.seller,
      buyer: buyer.buyer,
      mandateId,
      amountPaise: 12_300,
    });
    expect(paid.intent.status).toBe('settled');
    return waitFor('every delivery to finish', async () => {
      const rows = await t.db.query<{ status: string; attempt_count: number }[]>(
        `SELECT status, attempt_count FROM webhook_deliveries WHERE endpoint_id = ANY($1) ORDER BY endpoint_id`,
        [endpointIds],
      );
      return rows.length === urls.length && rows.every((r) => r.status !== 'pending') ? rows : null;
    });
  }

  const delivered = { event_type: 'intent.settled', outcome: 'delivered' };
  const failed = { event_type: 'intent.settled', outcome: 'failed' };

  it('counts attempts and deliveries by outcome, the attempts each took, and settle-to-delivery latency', async () => {
    const ok = await receiver([200]);
    const flaky = await receiver([500, 200]);
    const before = await scrape(t);
    const deliveries = await deliverOnePayment([ok.url, flaky.url]);
    expect(deliveries.map((d) => d.status)).toEqual(['delivered', 'delivered']);
    expect(deliveries.map((d) => d.attempt_count).sort()).toEqual([1, 2]);
    const after = await waitFor('the metrics to catch up', async () => {
      const s = await scrape(t);
      const counted =
        s.value(METRICS.webhookDeliveries.name, delivered) -
        before.value(METRICS.webhookDeliveries.name, delivered);
      return counted === 2 ? s : null;
    });
    const diff = (name: string, labels: Record<string, string>) =>
      after.value(name, labels) - before.value(name, labels);
    const attempts = (result: string) =>
      diff(METRICS.webhookAttempts.name, { event_type: 'intent.settled', result });
    expect(attempts('delivered')).toBe(2);
    expect(attempts('retry_scheduled')).toBe(1);
    const took = after.histogram(METRICS.webhookDeliveryAttempts.name, delivered);
    const tookBefore = before.histogram(METRICS.webhookDeliveryAttempts.name, delivered);
    expect(took.count - tookBefore.count).toBe(2);
    expect(took.sum - tookBefore.sum).toBe(3);
    const latency = after.histogram(METRICS.settleToDelivery.name, {});
    const latencyBefore = before.histogram(METRICS.settleToDelivery.name, {});
    expect(latency.count - latencyBefore.count).toBe(2);
    expect(latency.sum - latencyBefore.sum).toBeGreaterThan(0);
    expect(latency.sum - latencyBefore.sum).toBeLessThan(2 * 30);
    await ok.close();
    await flaky.close();
  });

  it('counts a delivery that exhausts its schedule as failed, with its attempts', async () => {
    const down = await receiver([503]);
    const before = await scrape(t);
    expect(await deliverOnePayment([down.url])).toEqual([{ status: 'failed', attempt_count: 3 }]);
    const after = await waitFor('the failure to be counted', async () => {
      const s = await scrape(t);
      return s.value(METRICS.webhookDeliveries.name, failed) >
        before.value(METRICS.webhookDeliveries.name, failed)
        ? s
        : null;
    });
    const attempts = (result: string) =>
      after.value(METRICS.webhookAttempts.name, { event_type: 'intent.settled', result }) -
      before.value(METRICS.webhookAttempts.name, { event_type: 'intent.settled', result });
    expect(attempts('retry_scheduled')).toBe(2);
    expect(attempts('failed')).toBe(1);
    const took = after.histogram(METRICS.webhookDeliveryAttempts.name, failed);
    const tookBefore = before.histogram(METRICS.webhookDeliveryAttempts.name, failed);
    expect([took.count - tookBefore.count, took.sum - tookBefore.sum]).toEqual([1, 3]);
    await down.close();
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  const token = `mt_${randomUUID().replace(/-/g, '')}`;
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({ metricsToken: token, runWorkers: false });
  });
  afterAll(() => t.close());

  it.each([
    ['no Authorization header', {}],
    ['the token in another scheme', { Authorization: `Basic ${token}` }],
    ['a wrong token of the same length', { Authorization: `Bearer ${token.slice(0, -1)}x` }],
    ['a prefix of the token', { Authorization: `Bearer ${token.slice(0, 10)}` }],
    ['the token with more after it', { Authorization: `Bearer ${token}x` }],
    ['an API key', { Authorization: 'Bearer sk_test_abc' }],
  ])('refuses %s with 401 and a Bearer challenge, revealing nothing', async (_, headers) => {
    const res = await request(t.url).get('/metrics').set(headers);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    expect(res.body.error.code).toBe('unauthorized');
    expect(res.text).not.toContain(token);
    expect(res.text).not.toMatch(/svc_|process_/);
  });

  it('serves the metrics to the bearer of the token', async () => {
    const s = await scrape(t, { Authorization: `Bearer ${token}` });
    expect(s.families.has(METRICS.httpRequests.name)).toBe(true);
    // The refusals above were requests too, counted under the route's template.
    expect(
      s.value(METRICS.httpRequests.name, { route: '/metrics', method: 'GET', status: '401' }),
    ).toBe(6);
  });
});

describe('GET /metrics in live mode without METRICS_TOKEN', () => {
  let t: TestApp;

  beforeAll(async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    t = await startApp({
      mode: 'live',
      metricsToken: null,
      runWorkers: false,
      signingPrivateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    });
  });
  afterAll(() => t.close());

  it('is not served at all: the same 404 as an unknown route, whatever the credential', async () => {
    for (const headers of [{}, { Authorization: 'Bearer anything-at-all-anything-at-all-1234' }]) {
      const res = await request(t.url).get('/metrics').set(headers);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('route_not_found');
      expect(res.text).not.toMatch(/svc_|process_/);
    }
  });
});
