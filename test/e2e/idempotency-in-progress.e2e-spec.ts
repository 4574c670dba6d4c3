import { randomUUID } from 'node:crypto';

import { Client } from 'pg';
import request from 'supertest';

import { IN_FLIGHT_LEASE_MS } from '../../src/common/idempotency/idempotency.interceptor';
import { PAYMENT_RAIL, PaymentRail } from '../../src/rails/payment-rail';
import { bearer } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { createOffer } from '../factories/offer.factory';
import { insertToken } from '../factories/payment-fixtures';
import { createCheckoutSession } from '../factories/session.factory';
import { startApp, TestApp, testDatabaseUrl } from '../support/app';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * Issue 40 item 1 (docs/security.md "A retry after a 503 or a crash"): the answer stored on a key
 * and the payment's state never disagree. An answer that is the payment still in progress (ACP
 * complete's `complete_in_progress`, quote pay's `processing`: the rail gave no definite answer)
 * carries Retry-After and is not stored as the key's final answer; the key stays resumable, and
 * once the rail answered the same key answers the settled outcome, which is then stored.
 *
 * The outage is real, as in idempotency-outcome.e2e-spec.ts: while the rail's debit is held, the
 * test database stops taking connections and the app's backends are terminated, so the payment's
 * second transaction cannot run and the first request fails with 503. The retry's rail status
 * check then gives no definite answer (a jest spy), and a later retry finds the rail's answer. The
 * reconciler is kept out of the way (railReconcileAfterMs), so only the retries move the payment.
 */
describe('an in-progress answer is never stored as the key’s final answer', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let mandateId: string;
  let rail: PaymentRail;
  let db: Client;
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

  /** The first request fails with 503 between the payment's two transactions (see above). */
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
    // The dead holder's lease runs out (nobody renews it).
    t.clock.advance(IN_FLIGHT_LEASE_MS + 1000);
    return res;
  }

  async function keyRecord(key: string) {
    return one<{
      status_code: number;
      response_raw: string | null;
      pending_until: Date | null;
      intent_id: string | null;
    }>(
      `SELECT status_code, response_raw, pending_until, intent_id
         FROM idempotency_records WHERE key = $1`,
      [key],
    );
  }

  /** In progress: Retry-After, nothing stored as final, the key resumable at once, its payment kept. */
  async function expectNotStored(key: string, res: request.Response) {
    expect(res.headers['retry-after']).toBeDefined();
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    const rec = await keyRecord(key);
    expect(rec.response_raw).toBeNull();
    expect(rec.intent_id).toMatch(/^pi_/);
    expect(rec.pending_until).toBeInstanceOf(Date);
    expect((rec.pending_until as Date).getTime()).toBeLessThanOrEqual(t.clock.now().getTime());
  }

  /** The rail's status check gives no definite answer, once (the rail is held). */
  function railHeldOnce() {
    jest.spyOn(rail, 'debitStatus').mockRejectedValueOnce(new Error('no answer yet'));
  }

  function completeBody(token: string) {
    return {
      payment_data: {
        handler_id: 'svc_upi_mandate',
        instrument: { type: 'svc_mandate', credential: { type: 'svc_delegated_token', token } },
      },
    };
  }

  async function payableQuote(unitPaise: number): Promise<string> {
    const created = await request(t.url)
      .post('/v1/pay/quotes')
      .set(bearer(ws.seller.credential))
      .send({
        buyer_agent_id: ws.buyer.id,
        category: 'services.test',
        items: [{ name: 'In-progress item', unit_paise: unitPaise }],
      });
    expect(created.status).toBe(201);
    return created.body.id as string;
  }

  it('ACP complete: a retry while the rail is held answers complete_in_progress with Retry-After, not stored; then the completed session, stored', async () => {
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

    railHeldOnce();
    const held = await complete();
    expect(held.status).toBe(200);
    expect(held.body.status).toBe('complete_in_progress');
    await expectNotStored(key, held);

    // The rail has answered: the same key answers the completed session, and that is stored.
    const retry = await complete();
    expect(retry.status).toBe(200);
    expect(retry.body.status).toBe('completed');
    expect(retry.body.order?.id).toMatch(/^ord_/);
    expect(retry.headers['retry-after']).toBeUndefined();
    const got = await request(t.url)
      .get(`/acp/checkout_sessions/${session.id}`)
      .set(acpHeaders(ws.merchantKey));
    expect(got.body.status).toBe('completed');
    const stored = await keyRecord(key);
    expect(stored).toMatchObject({ status_code: 200, pending_until: null });
    expect(stored.response_raw).toBe(retry.text);
    const replay = await complete();
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(retry.text);
    expect(
      await one(
        `SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'settled')::int AS settled
           FROM payment_intents WHERE source_id = $1`,
        [session.id],
      ),
    ).toEqual({ n: 1, settled: 1 });
  });

  it('quote pay: a retry while the rail is held answers processing with Retry-After, not stored; then the settled payment, stored', async () => {
    const quoteId = await payableQuote(45_700);
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

    railHeldOnce();
    const held = await pay();
    expect(held.status).toBe(200);
    expect(held.body.intent.status).toBe('processing');
    expect(held.body.quote.status).toBe('processing');
    await expectNotStored(key, held);

    const retry = await pay();
    expect(retry.status).toBe(200);
    expect(retry.body.intent.status).toBe('settled');
    expect(retry.body.quote.status).toBe('paid');
    expect(retry.body.intent.id).toBe(held.body.intent.id);
    const stored = await keyRecord(key);
    expect(stored).toMatchObject({ status_code: 200, pending_until: null });
    expect(stored.response_raw).toBe(retry.text);
    const replay = await pay();
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(retry.text);
    expect(
      await one(`SELECT count(*)::int AS n FROM payment_intents WHERE source_id = $1`, [quoteId]),
    ).toEqual({ n: 1 });
  });

  it('quote pay: the first request’s own processing answer (no rail answer) is not stored; a retry answers the settled payment', async () => {
    const quoteId = await payableQuote(45_800);
    const key = randomUUID();
    const pay = () =>
      request(t.url)
        .post(`/v1/pay/quotes/${quoteId}/pay`)
        .set(bearer(ws.buyer.credential))
        .set('Idempotency-Key', key)
        .send({ mandate_id: mandateId });
    jest.spyOn(rail, 'debit').mockRejectedValueOnce(new Error('socket hang up'));
    const first = await pay();
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      quote: { status: 'processing' },
      intent: { status: 'processing' },
    });
    await expectNotStored(key, first);

    const retry = await pay();
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({
      quote: { status: 'paid' },
      intent: { id: first.body.intent.id, status: 'settled' },
    });
    const stored = await keyRecord(key);
    expect(stored).toMatchObject({ status_code: 200, pending_until: null });
    expect(stored.response_raw).toBe(retry.text);
  });
});
