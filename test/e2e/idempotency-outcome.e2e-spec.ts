import { randomUUID } from 'node:crypto';

import { Client } from 'pg';
import request from 'supertest';

import {
  IN_FLIGHT_LEASE_MS,
  IN_FLIGHT_RENEW_MS,
} from '../../src/common/idempotency/idempotency.interceptor';
import { PAYMENT_RAIL, PaymentRail } from '../../src/rails/payment-rail';
import { bearer } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { createOffer } from '../factories/offer.factory';
import { insertToken } from '../factories/payment-fixtures';
import { createCheckoutSession } from '../factories/session.factory';
import { startApp, TestApp, testDatabaseUrl } from '../support/app';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * Issue 40 item 1 (docs/security.md "Idempotency", "A retry after a 503 or a crash"): a payment
 * whose first transaction committed and whose request then lost Postgres (or its process) before
 * answering. The retry with the same Idempotency-Key answers the payment's true state (in flight
 * with Retry-After while the dead holder's short lease runs, then the settled answer the first run
 * would have given), never `token_used` / `quote_already_paid`, and nothing error-shaped is stored
 * on the key.
 *
 * The outage is real: while the sandbox rail's debit is held (a jest spy on the rail instance, as
 * in gateway-pipeline.e2e-spec.ts), the test database stops taking connections and every backend
 * of the app is terminated; the rail then answers, the payment's second transaction cannot run,
 * and the request fails with 503. Connections are then allowed again. The reconciler is kept out
 * of the way (railReconcileAfterMs), so what settles the payment is the retry.
 */
describe('a retry sees the payment outcome after a crash between its two transactions', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let mandateId: string;
  let rail: PaymentRail;
  let db: Client;
  /** On the server's `postgres` database: a database cannot close its doors to itself. */
  let admin: Client;
  let dbName: string;

  beforeAll(async () => {
    t = await startApp({ railReconcileAfterMs: 3_600_000 });
    ws = await seedWorkspace(t);
    mandateId = await createMandate(t, { workspaceId: ws.workspaceId, agentId: ws.buyer.id });
    rail = t.get<PaymentRail>(PAYMENT_RAIL as never);
    const url = await testDatabaseUrl();
    dbName = new URL(url).pathname.slice(1);
    db = new Client({ connectionString: url });
    await db.connect();
    const adminUrl = new URL(url);
    adminUrl.pathname = '/postgres';
    admin = new Client({ connectionString: adminUrl.toString() });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.query(`ALTER DATABASE "${dbName}" ALLOW_CONNECTIONS true`).catch(() => undefined);
    await admin?.end();
    await db?.end();
    await t?.close();
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await admin.query(`ALTER DATABASE "${dbName}" ALLOW_CONNECTIONS true`);
  });

  const one = async <T>(sql: string, params: unknown[]): Promise<T> =>
    ((await db.query(sql, params)).rows as T[])[0];

  async function waitFor(what: string, fn: () => Promise<boolean>, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!(await fn())) {
      if (Date.now() > deadline) {
        throw new Error(`timed out waiting for ${what}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /**
   * Runs `send` with the rail's debit held; once `committed` says the first transaction is in,
   * Postgres goes away for the app (no new connections, every backend terminated), the rail
   * answers, and the request fails. Postgres comes back after the answer.
   */
  async function failBetweenTransactions(
    send: () => Promise<request.Response>,
    committed: () => Promise<boolean>,
  ): Promise<request.Response> {
    const real = rail.debit.bind(rail);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    jest.spyOn(rail, 'debit').mockImplementationOnce(async (req) => {
      await gate;
      return real(req);
    });
    // A supertest request is sent once something waits for it.
    const first = send().then((r) => r);
    await waitFor('the first transaction to commit', committed);
    await admin.query(`ALTER DATABASE "${dbName}" ALLOW_CONNECTIONS false`);
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = $1 AND pid <> $2`,
      [dbName, (db as unknown as { processID: number }).processID],
    );
    release();
    const res = await first;
    await admin.query(`ALTER DATABASE "${dbName}" ALLOW_CONNECTIONS true`);
    return res;
  }

  async function keyRecord(key: string) {
    return one<{
      status_code: number;
      response_raw: string | null;
      pending_until: Date | null;
      intent_id: string | null;
      created_at: Date;
    }>(
      `SELECT status_code, response_raw, pending_until, intent_id, created_at
         FROM idempotency_records WHERE key = $1`,
      [key],
    );
  }

  /** The dead holder's lease is short: a retry within it is 409 with Retry-After, then it is free. */
  async function expectHeldBriefly(key: string, retry: () => Promise<request.Response>) {
    const held = await keyRecord(key);
    expect(held.pending_until).toBeInstanceOf(Date);
    expect(held.response_raw).toBeNull();
    expect(held.intent_id).toMatch(/^pi_/);
    expect((held.pending_until as Date).getTime() - t.clock.now().getTime()).toBeLessThanOrEqual(
      IN_FLIGHT_LEASE_MS,
    );
    const during = await retry();
    expect(during.status).toBe(409);
    expect(JSON.stringify(during.body)).toContain('idempotency_in_flight');
    expect(during.headers['retry-after']).toBeDefined();
    // Seconds later (the lease ran out: nobody renewed it).
    t.clock.advance(IN_FLIGHT_LEASE_MS + 1000);
  }

  function completeBody(token: string) {
    return {
      payment_data: {
        handler_id: 'svc_upi_mandate',
        instrument: { type: 'svc_mandate', credential: { type: 'svc_delegated_token', token } },
      },
    };
  }

  it('ACP complete: 503, then in flight briefly, then the completed session (never token_used), stored once', async () => {
    await createOffer(t, ws.seller.id, { sku: 'chai-1kg', unitPaise: 45_000 });
    const session = await createCheckoutSession(t, ws);
    const token = await insertToken(t, ws, { sessionId: session.id, mandateId });
    const key = randomUUID();
    const complete = () =>
      request(t.url)
        .post(`/acp/checkout_sessions/${session.id}/complete`)
        .set(acpHeaders(ws.merchantKey, key))
        .send(completeBody(token));

    const first = await failBetweenTransactions(complete, async () => {
      const row = await one<{ status: string } | undefined>(
        'SELECT status FROM checkout_sessions WHERE id = $1',
        [session.id],
      );
      return row?.status === 'complete_in_progress';
    });
    expect(first.status).toBe(503);
    expect(first.headers['retry-after']).toBeDefined();
    await expectHeldBriefly(key, complete);

    const retry = await complete();
    expect(retry.status).toBe(200);
    expect(retry.body.status).toBe('completed');
    expect(retry.body.order?.id).toMatch(/^ord_/);
    const got = await request(t.url)
      .get(`/acp/checkout_sessions/${session.id}`)
      .set(acpHeaders(ws.merchantKey));
    expect(got.body.status).toBe('completed');
    expect(retry.body.order).toEqual(got.body.order);

    const stored = await keyRecord(key);
    expect(stored).toMatchObject({ status_code: 200, pending_until: null });
    expect(stored.response_raw).toBe(retry.text);
    expect(stored.response_raw).not.toMatch(/token_used|"error"/);
    const replay = await complete();
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(retry.text);
    const intents = await one<{ n: number; settled: number }>(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'settled')::int AS settled
         FROM payment_intents WHERE source_id = $1`,
      [session.id],
    );
    expect(intents).toEqual({ n: 1, settled: 1 });
  });

  it('quote pay: 503, then in flight briefly, then the settled payment (never quote_already_paid), stored once', async () => {
    const created = await request(t.url)
      .post('/v1/pay/quotes')
      .set(bearer(ws.seller.credential))
      .send({
        buyer_agent_id: ws.buyer.id,
        category: 'services.test',
        items: [{ name: 'Retried item', unit_paise: 45_600 }],
      });
    expect(created.status).toBe(201);
    const quoteId = created.body.id as string;
    const key = randomUUID();
    const pay = () =>
      request(t.url)
        .post(`/v1/pay/quotes/${quoteId}/pay`)
        .set(bearer(ws.buyer.credential))
        .set('Idempotency-Key', key)
        .send({ mandate_id: mandateId });

    const first = await failBetweenTransactions(pay, async () => {
      const row = await one<{ status: string } | undefined>(
        'SELECT status FROM quotes WHERE id = $1',
        [quoteId],
      );
      return row?.status === 'processing';
    });
    expect(first.status).toBe(503);
    await expectHeldBriefly(key, pay);

    const retry = await pay();
    expect(retry.status).toBe(200);
    expect(retry.body.intent.status).toBe('settled');
    expect(retry.body.quote.status).toBe('paid');
    const stored = await keyRecord(key);
    expect(stored).toMatchObject({ status_code: 200, pending_until: null });
    expect(stored.response_raw).toBe(retry.text);
    expect(stored.response_raw).not.toMatch(/quote_already_paid|"error"/);
    const replay = await pay();
    expect(replay.status).toBe(200);
    expect(replay.text).toBe(retry.text);
    const intents = await one<{ n: number }>(
      `SELECT count(*)::int AS n FROM payment_intents WHERE source_id = $1`,
      [quoteId],
    );
    expect(intents.n).toBe(1);
  });

  it('a request still running renews its short lease, so its key stays in flight however long the rail takes', async () => {
    const created = await request(t.url)
      .post('/v1/pay/quotes')
      .set(bearer(ws.seller.credential))
      .send({
        buyer_agent_id: ws.buyer.id,
        category: 'services.test',
        items: [{ name: 'Slow rail item', unit_paise: 12_300 }],
      });
    const quoteId = created.body.id as string;
    const key = randomUUID();
    const pay = () =>
      request(t.url)
        .post(`/v1/pay/quotes/${quoteId}/pay`)
        .set(bearer(ws.buyer.credential))
        .set('Idempotency-Key', key)
        .send({ mandate_id: mandateId });
    const real = rail.debit.bind(rail);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    jest.spyOn(rail, 'debit').mockImplementationOnce(async (req) => {
      await gate;
      return real(req);
    });
    const first = pay().then((r) => r);
    await waitFor('the first transaction to commit', async () => {
      const row = await keyRecord(key);
      return row?.intent_id !== undefined && row.intent_id !== null;
    });
    const leased = (await keyRecord(key)).pending_until as Date;
    // The holder is alive: the lease is renewed past its first end.
    await waitFor(
      'the lease to be renewed',
      async () => ((await keyRecord(key)).pending_until as Date) > leased,
      IN_FLIGHT_RENEW_MS * 3,
    );
    const twin = await pay();
    expect(twin.status).toBe(409);
    release();
    const done = await first;
    expect(done.status).toBe(200);
    expect(done.body.intent.status).toBe('settled');
    expect(await keyRecord(key)).toMatchObject({ status_code: 200, pending_until: null });
  }, 30_000);
});
