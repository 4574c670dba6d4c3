import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { AddressInfo } from 'node:net';

import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import request from 'supertest';

import { ApprovalsService } from '../../src/approvals/approvals.service';
import { QUEUES } from '../../src/common/queues/queues';
import { RetentionJob } from '../../src/retention/retention.job';
import { bearer } from '../factories/intent.factory';
import { createOffer } from '../factories/offer.factory';
import { insertMandate } from '../factories/payment-fixtures';
import { startApp, TestApp } from '../support/app';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * docs/operations.md "Running more than one instance": two instances of the app on one database and one Redis
 * (one queue prefix, so Bull keys, rate-limit counters and the repeatable cleanup job are shared),
 * every step of every flow sent to one or the other like a load balancer would. Both instances
 * run the Sweeper, the Bull workers and the dispatcher. The Sweeper ticks only once a minute here,
 * so every webhook that arrives in time was dispatched on a NOTIFY at commit.
 *
 * Shown: no double debit; each outbox event delivered exactly once to the receiver (one delivery,
 * one attempt); an approval-expiry sweep racing on both instances expires each approval once
 * (one audit row, one decline, one refund.expired event, delivered once); the retention sweep on both.
 */

interface Receiver {
  url: string;
  ids: string[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const ids: string[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      ids.push(String(req.headers['webhook-id']));
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    ids,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function waitFor(what: string, ok: () => Promise<boolean> | boolean, ms = 15_000) {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

const TEA = { sku: 'tea-450', unitPaise: 45_000 };
const HAMPER = { sku: 'hamper-3500', unitPaise: 350_000 };
const FLOWS = 40;
const WAITING = 6;
const REFUNDS = 5;

describe('two instances on one database and one Redis', () => {
  let a: TestApp;
  let b: TestApp;
  let seller: SeededWorkspace;
  let receiver: Receiver;
  let buyers: { ws: SeededWorkspace; mandateId: string }[];
  const settledIntents: string[] = [];
  const waitingSessions: string[] = [];

  const instance = (n: number) => (n % 2 === 0 ? a : b);

  beforeAll(async () => {
    const shared = {
      dailyCapPaise: 1_000_000_000,
      webhookDispatchIntervalMs: 60_000,
      approvalTtlSeconds: 3600,
    };
    a = await startApp(shared);
    b = await startApp({ ...shared, queuePrefix: a.config.queuePrefix });
    seller = await seedWorkspace(a);
    await createOffer(a, seller.seller.id, { sku: TEA.sku, unitPaise: TEA.unitPaise });
    await createOffer(a, seller.seller.id, { sku: HAMPER.sku, unitPaise: HAMPER.unitPaise });
    receiver = await startReceiver();
    await request(b.url)
      .post('/v1/webhooks/endpoints')
      .set(bearer(seller.apiKey))
      .send({ url: receiver.url, event_types: ['*'] })
      .expect(201);
    buyers = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const ws = await seedWorkspace(a);
        return { ws, mandateId: await insertMandate(a, ws, { payeeAgentIds: [seller.seller.id] }) };
      }),
    );
  });
  afterAll(async () => {
    await receiver.close();
    await b.close();
    await a.close();
  });

  /** create → delegate_payment → complete, step k of flow n on instance n + k. */
  async function flow(n: number, item: typeof TEA) {
    const buyer = buyers[n % buyers.length];
    const created = await request(instance(n).url)
      .post('/acp/checkout_sessions')
      .set(acpHeaders(seller.merchantKey, randomUUID()))
      .send({ line_items: [{ id: item.sku, quantity: 1 }], currency: 'inr', capabilities: {} });
    const delegated = await request(instance(n + 1).url)
      .post('/acp/agentic_commerce/delegate_payment')
      .set(acpHeaders(buyer.ws.buyerKey, randomUUID()))
      .send({
        payment_method: { type: 'svc_mandate', mandate_id: buyer.mandateId },
        allowance: {
          reason: 'one_time',
          max_amount: item.unitPaise,
          currency: 'inr',
          checkout_session_id: created.body.id,
          merchant_id: seller.seller.id,
          expires_at: new Date(Date.now() + 3600_000).toISOString(),
        },
        risk_signals: [],
        metadata: {},
      });
    const completed = await request(instance(n + 2).url)
      .post(`/acp/checkout_sessions/${created.body.id}/complete`)
      .set(acpHeaders(seller.merchantKey, randomUUID()))
      .send({
        payment_data: {
          handler_id: 'svc_upi_mandate',
          instrument: {
            type: 'svc_mandate',
            credential: { type: 'svc_delegated_token', token: delegated.body.id },
          },
        },
      });
    return {
      statuses: [created.status, delegated.status, completed.status],
      sessionId: created.body.id as string,
      status: completed.body.status as string,
    };
  }

  async function sellerEvents(): Promise<{ id: string; type: string }[]> {
    return a.db.query(
      `SELECT id, type FROM outbox_events WHERE workspace_id = $1 AND type NOT LIKE 'order%' ORDER BY id`,
      [seller.workspaceId],
    );
  }

  /** Every event of the seller's workspace reached the receiver exactly once, over one delivery and one attempt. */
  async function expectEachDeliveredOnce(): Promise<number> {
    const events = await sellerEvents();
    await waitFor('every event at the receiver', () => receiver.ids.length >= events.length);
    await new Promise((r) => setTimeout(r, 300)); // a duplicate would arrive now
    expect([...receiver.ids].sort()).toEqual(events.map((e) => e.id).sort());
    const deliveries = await a.db.query<{ status: string; attempt_count: number; n: string }[]>(
      `SELECT d.status, d.attempt_count, count(*) OVER (PARTITION BY d.event_id) AS n
         FROM webhook_deliveries d WHERE d.workspace_id = $1`,
      [seller.workspaceId],
    );
    expect(deliveries).toHaveLength(events.length);
    expect(
      deliveries.every((d) => d.status === 'delivered' && d.attempt_count === 1 && d.n === '1'),
    ).toBe(true);
    return events.length;
  }

  it('runs concurrent flows through both: every one completes, one debit per intent, each event delivered once (woken by NOTIFY)', async () => {
    const runs = await Promise.all([
      ...Array.from({ length: FLOWS }, (_, n) => flow(n, TEA)),
      ...Array.from({ length: WAITING }, (_, n) => flow(n, HAMPER)),
    ]);
    for (const r of runs.slice(0, FLOWS)) {
      expect({ statuses: r.statuses, status: r.status }).toEqual({
        statuses: [201, 201, 200],
        status: 'completed',
      });
    }
    for (const r of runs.slice(FLOWS)) {
      expect({ statuses: r.statuses, status: r.status }).toEqual({
        statuses: [201, 201, 200],
        status: 'pending_approval',
      });
      waitingSessions.push(r.sessionId);
    }

    const intents = await a.db.query<{ id: string; status: string; debits: number }[]>(
      `SELECT i.id, i.status,
              (SELECT count(*)::int FROM rail_transfers t WHERE t.intent_id = i.id AND t.direction = 'debit') AS debits
         FROM payment_intents i WHERE i.seller_agent_id = $1`,
      [seller.seller.id],
    );
    const settled = intents.filter((i) => i.status === 'settled');
    expect(settled).toHaveLength(FLOWS);
    expect(intents.filter((i) => i.status === 'requires_approval')).toHaveLength(WAITING);
    expect(intents.every((i) => i.debits === (i.status === 'settled' ? 1 : 0))).toBe(true);
    settledIntents.push(...settled.map((i) => i.id));

    // The seller asks for refunds through both instances: more events, each waiting for a person.
    for (let n = 0; n < REFUNDS; n++) {
      await request(instance(n).url)
        .post(`/v1/pay/intents/${settledIntents[n]}/refunds`)
        .set({ ...bearer(seller.seller.credential), 'Idempotency-Key': randomUUID() })
        .send({ reason: 'scale-out test' })
        .expect(201);
    }
    const delivered = await expectEachDeliveredOnce();
    const types = (await sellerEvents()).map((e) => e.type);
    expect(types.filter((t) => t === 'intent.settled')).toHaveLength(FLOWS);
    expect(types.filter((t) => t === 'refund.requested')).toHaveLength(REFUNDS);
    expect(delivered).toBe(types.length);
  });

  it('an expiry sweep racing on both instances expires each approval once', async () => {
    const approvals = await a.db.query<{ id: string; kind: string }[]>(
      `SELECT id, kind FROM approvals WHERE status = 'pending' AND (workspace_id = $1 OR workspace_id = ANY($2))`,
      [seller.workspaceId, buyers.map((x) => x.ws.workspaceId)],
    );
    expect(approvals.filter((x) => x.kind === 'payment')).toHaveLength(WAITING);
    expect(approvals.filter((x) => x.kind === 'refund')).toHaveLength(REFUNDS);

    for (const t of [a, b]) {
      t.clock.advance(2 * 3600_000);
    }
    try {
      const sweeps = await Promise.all(
        [a, b, a, b, a, b].map((t) => t.get(ApprovalsService).expireOverdue()),
      );
      expect(sweeps.reduce((s, n) => s + n, 0)).toBe(WAITING + REFUNDS);
    } finally {
      for (const t of [a, b]) {
        t.clock.reset();
      }
    }
    const ids = approvals.map((x) => x.id);
    const rows = await a.db.query<{ status: string; audits: number }[]>(
      `SELECT ap.status,
              (SELECT count(*)::int FROM audit_events e WHERE e.subject_id = ap.id AND e.action = 'approval.expired') AS audits
         FROM approvals ap WHERE ap.id = ANY($1)`,
      [ids],
    );
    expect(rows.every((r) => r.status === 'expired' && r.audits === 1)).toBe(true);

    const declined = await a.db.query<{ status: string; decline_code: string; audits: number }[]>(
      `SELECT i.status, i.decline_code,
              (SELECT count(*)::int FROM audit_events e WHERE e.subject_id = i.id AND e.action = 'intent.declined') AS audits
         FROM payment_intents i WHERE i.source_id = ANY($1)`,
      [waitingSessions],
    );
    expect(declined).toHaveLength(WAITING);
    expect(
      declined.every(
        (i) => i.status === 'declined' && i.decline_code === 'approval_expired' && i.audits === 1,
      ),
    ).toBe(true);

    const refunds = await a.db.query<{ status: string; events: number }[]>(
      `SELECT r.status,
              (SELECT count(*)::int FROM outbox_events o WHERE o.subject_id = r.id AND o.type = 'refund.expired') AS events
         FROM refunds r WHERE r.intent_id = ANY($1)`,
      [settledIntents],
    );
    expect(refunds).toHaveLength(REFUNDS);
    expect(refunds.every((r) => r.status === 'expired' && r.events === 1)).toBe(true);

    // The new refund.expired events too, each delivered once.
    const types = (await sellerEvents()).map((e) => e.type);
    expect(types.filter((t) => t === 'refund.expired')).toHaveLength(REFUNDS);
    await expectEachDeliveredOnce();
    const [{ n }] = await a.db.query<{ n: string }[]>(
      `SELECT count(*) AS n FROM rail_transfers t JOIN payment_intents i ON i.id = t.intent_id
        WHERE i.seller_agent_id = $1 AND t.direction = 'debit'`,
      [seller.seller.id],
    );
    expect(Number(n)).toBe(FLOWS);
  });

  it('the retention sweep runs on both instances at once, each kind on one (no hourly Bull job per instance left behind)', async () => {
    const queue = a.get<Queue>(getQueueToken(QUEUES.maintenance) as never);
    const repeatable = await queue.getRepeatableJobs();
    expect(repeatable.filter((j) => j.name === 'cleanup-idempotency')).toHaveLength(0);
    const [one, two] = await Promise.all([a.get(RetentionJob).run(), b.get(RetentionJob).run()]);
    expect(one).toBeDefined();
    expect(two).toBeDefined();
  });
});
