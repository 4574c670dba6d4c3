import { randomUUID } from 'node:crypto';

import { Client } from 'pg';
import request from 'supertest';

import { ApprovalsService } from '../../src/approvals/approvals.service';
import { Tx } from '../../src/database/tx';
import { PaymentAttempt } from '../../src/payments/payment-attempt';
import { PaymentsService } from '../../src/payments/payments.service';
import { RailReconciler } from '../../src/payments/rail-reconciler';
import { PAYMENT_RAIL, PaymentRail, RailResult } from '../../src/rails/payment-rail';
import { bearer, payFreeFormQuote } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { createOffer } from '../factories/offer.factory';
import { insertToken } from '../factories/payment-fixtures';
import { createCheckoutSession } from '../factories/session.factory';
import { startApp, TestApp, testDatabaseUrl } from '../support/app';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * Item 0 of the gateway rail, on the sandbox rail (docs/architecture.md "Payment pipeline",
 * "Transactions"): no rail call inside a database transaction. The intent is committed
 * `processing` first (with its source marked in progress), the rail is called with no transaction
 * open and no row lock held, and a second short transaction settles or fails it. An intent the rail
 * gave no definite answer for stays `processing` and the reconciler (a Bull job and a sweep) asks
 * the rail again; whichever of the request and the reconciler comes first settles it, once. The
 * synchronous answers of quote pay, ACP complete and the hosted page are unchanged when the rail
 * answers at once (the other suites show that); here the rail is slowed or made to fail through a
 * jest spy on the sandbox rail instance (test code only, no hooks in production code).
 */
describe('payment pipeline in two transactions (sandbox rail)', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let mandateId: string;
  let rail: PaymentRail;
  let db: Client;

  beforeAll(async () => {
    t = await startApp({ railReconcileAfterMs: 1500, webhookDispatchIntervalMs: 100 });
    ws = await seedWorkspace(t);
    mandateId = await createMandate(t, { workspaceId: ws.workspaceId, agentId: ws.buyer.id });
    rail = t.get<PaymentRail>(PAYMENT_RAIL as never);
    db = new Client({ connectionString: await testDatabaseUrl() });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await t?.close();
  });
  afterEach(() => jest.restoreAllMocks());

  const one = async <T>(sql: string, params: unknown[]): Promise<T> =>
    ((await db.query(sql, params)).rows as T[])[0];

  const count = async (sql: string, params: unknown[]): Promise<number> =>
    (await one<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params)).n;

  async function quote(amountPaise: number): Promise<string> {
    const res = await request(t.url)
      .post('/v1/pay/quotes')
      .set(bearer(ws.seller.credential))
      .send({
        buyer_agent_id: ws.buyer.id,
        category: 'services.test',
        items: [{ name: 'Two-phase item', unit_paise: amountPaise }],
      });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  const payQuote = (quoteId: string, key?: string) => {
    const req = request(t.url)
      .post(`/v1/pay/quotes/${quoteId}/pay`)
      .set(bearer(ws.buyer.credential));
    return (key ? req.set('Idempotency-Key', key) : req).send({ mandate_id: mandateId });
  };

  async function waitFor(what: string, fn: () => Promise<boolean>, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!(await fn())) {
      if (Date.now() > deadline) {
        throw new Error(`timed out waiting for ${what}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Exactly one of everything a settlement writes. */
  async function expectSettledOnce(intentId: string): Promise<void> {
    const intent = await one<{ status: string; receipt_id: string }>(
      'SELECT status, receipt_id FROM payment_intents WHERE id = $1',
      [intentId],
    );
    expect(intent.status).toBe('settled');
    expect(await count('rail_transfers WHERE intent_id = $1', [intentId])).toBe(1);
    expect(
      await count(`outbox_events WHERE subject_id = $1 AND type = 'intent.settled'`, [intentId]),
    ).toBe(1);
    expect(await count('chain_entries WHERE chain_id = $1', [intent.receipt_id])).toBe(1);
  }

  it('calls the rail with the intent committed processing, no transaction open and no row locked', async () => {
    const quoteId = await quote(12_300);
    const seen: Record<string, unknown> = {};
    const tx = t.get(Tx);
    const real = rail.debit.bind(rail);
    jest.spyOn(rail, 'debit').mockImplementation(async (req) => {
      seen.inTransaction = tx.active;
      seen.intent = await one('SELECT status FROM payment_intents WHERE id = $1', [req.intentId]);
      seen.quote = await one('SELECT status, intent_id FROM quotes WHERE id = $1', [quoteId]);
      // Every row the first transaction locked is free: another connection takes them at once.
      await db.query('BEGIN');
      try {
        for (const [table, id] of [
          ['quotes', quoteId],
          ['agents', ws.buyer.id],
          ['mandates', mandateId],
          ['payment_intents', req.intentId],
        ]) {
          await db.query(`SELECT 1 FROM ${table} WHERE id = $1 FOR UPDATE NOWAIT`, [id]);
        }
        seen.locksFree = true;
      } finally {
        await db.query('ROLLBACK');
      }
      seen.request = req;
      return real(req);
    });
    const res = await payQuote(quoteId, randomUUID());
    expect(res.status).toBe(200);
    const intentId = res.body.intent.id as string;
    expect(seen).toEqual({
      inTransaction: false,
      intent: { status: 'processing' },
      quote: { status: 'processing', intent_id: intentId },
      locksFree: true,
      request: {
        intentId,
        amountPaise: 12_300,
        mandateId,
        source: { kind: 'quote', id: quoteId },
        description: expect.stringContaining(quoteId) as string,
      },
    });
    // The answer is the final state, as before the split.
    expect(res.body).toMatchObject({
      quote: { status: 'paid' },
      intent: { status: 'settled', receipt_id: expect.stringMatching(/^rcp_/) as string },
    });
    await expectSettledOnce(intentId);
  });

  it('leaves the intent processing when the rail gives no answer; the reconciler settles it once', async () => {
    const quoteId = await quote(23_400);
    jest.spyOn(rail, 'debit').mockRejectedValueOnce(new Error('socket hang up'));
    const res = await payQuote(quoteId);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      quote: { status: 'processing' },
      intent: { status: 'processing', receipt_id: null },
    });
    const intentId = res.body.intent.id as string;
    // Nothing can start on a quote whose payment is on the rail.
    const again = await payQuote(quoteId);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('quote_payment_in_progress');
    await waitFor('the reconciler to settle the intent', async () => {
      const row = await one<{ status: string }>(
        'SELECT status FROM payment_intents WHERE id = $1',
        [intentId],
      );
      return row.status === 'settled';
    });
    await expectSettledOnce(intentId);
    expect(await one('SELECT status FROM quotes WHERE id = $1', [quoteId])).toEqual({
      status: 'paid',
    });
    // Asking again changes nothing: settling a settled intent is a no-op.
    expect(
      await t.get(PaymentsService).debitOnRail(PaymentAttempt.ofIntent(intentId), 'reconcile'),
    ).toBeNull();
    await expectSettledOnce(intentId);
  });

  it('fails the payment once on a definite rail failure, found by the reconciler; a late success changes nothing', async () => {
    const quoteId = await quote(10_051); // …51: insufficient funds on the sandbox rail
    jest.spyOn(rail, 'debit').mockRejectedValueOnce(new Error('timeout'));
    const res = await payQuote(quoteId);
    const intentId = res.body.intent.id as string;
    expect(res.body.intent.status).toBe('processing');
    await waitFor('the reconciler to fail the intent', async () => {
      const row = await one<{ status: string }>(
        'SELECT status FROM payment_intents WHERE id = $1',
        [intentId],
      );
      return row.status === 'failed';
    });
    expect(
      await one('SELECT status, decline_code FROM payment_intents WHERE id = $1', [intentId]),
    ).toEqual({ status: 'failed', decline_code: 'insufficient_funds' });
    expect(await one('SELECT status, intent_id FROM quotes WHERE id = $1', [quoteId])).toEqual({
      status: 'open',
      intent_id: null,
    });
    // A success arriving after the failure (a confused rail) never moves it back.
    const late: RailResult = { status: 'succeeded', reference: 'SBXLATE' };
    expect(
      await t.get(PaymentsService).applyDebit(late, PaymentAttempt.ofIntent(intentId)),
    ).toBeNull();
    expect(await count('outbox_events WHERE subject_id = $1', [intentId])).toBe(0);
    expect(await count('rail_transfers WHERE intent_id = $1', [intentId])).toBe(1);
  });

  it('settles once when the reconciler answers before the slow request does', async () => {
    const quoteId = await quote(34_500);
    const real = rail.debit.bind(rail);
    // The request's rail call takes longer than RAIL_RECONCILE_AFTER_MS, then errors.
    jest.spyOn(rail, 'debit').mockImplementationOnce(async () => {
      await new Promise((r) => setTimeout(r, 3500));
      throw new Error('gave up');
    });
    jest.spyOn(rail, 'debitStatus').mockImplementation((req) => real(req));
    const res = await payQuote(quoteId);
    // By the time the request's own call failed, the sweep had asked and settled it.
    expect(res.body).toMatchObject({
      quote: { status: 'paid' },
      intent: { status: 'settled' },
    });
    await expectSettledOnce(res.body.intent.id as string);
  });

  it('holds the Idempotency-Key in flight until the answer is final, then replays it', async () => {
    const quoteId = await quote(45_600);
    const key = randomUUID();
    const real = rail.debit.bind(rail);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    jest.spyOn(rail, 'debit').mockImplementationOnce(async (req) => {
      await gate;
      return real(req);
    });
    const first = payQuote(quoteId, key).then((r) => r);
    await waitFor('the first phase to commit', async () => {
      const row = await one<{ status: string } | undefined>(
        'SELECT status FROM quotes WHERE id = $1',
        [quoteId],
      );
      return row?.status === 'processing';
    });
    const record = await one<{ pending_until: Date | null; response_raw: string | null }>(
      `SELECT pending_until, response_raw FROM idempotency_records WHERE key = $1`,
      [key],
    );
    expect(record.pending_until).toBeInstanceOf(Date);
    expect(record.response_raw).toBeNull();
    const twin = await payQuote(quoteId, key);
    expect(twin.status).toBe(409);
    expect(twin.body.error.code).toBe('idempotency_in_flight');
    release();
    const done = await first;
    expect(done.status).toBe(200);
    expect(done.body.intent.status).toBe('settled');
    const replay = await payQuote(quoteId, key);
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(done.text);
    expect(
      await one(`SELECT pending_until FROM idempotency_records WHERE key = $1`, [key]),
    ).toEqual({ pending_until: null });
  });

  it('ACP complete: complete_in_progress while the rail has not answered (not cancelable), completed with its order after', async () => {
    await createOffer(t, ws.seller.id, { sku: 'chai-1kg', unitPaise: 45_000 });
    const session = await createCheckoutSession(t, ws);
    const token = await insertToken(t, ws, { sessionId: session.id, mandateId });
    jest.spyOn(rail, 'debit').mockRejectedValueOnce(new Error('no answer'));
    const res = await request(t.url)
      .post(`/acp/checkout_sessions/${session.id}/complete`)
      .set(acpHeaders(ws.merchantKey, randomUUID()))
      .send({
        payment_data: {
          handler_id: 'svc_upi_mandate',
          instrument: {
            type: 'svc_mandate',
            credential: { type: 'svc_delegated_token', token },
          },
        },
      });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('complete_in_progress');
    const cancel = await request(t.url)
      .post(`/acp/checkout_sessions/${session.id}/cancel`)
      .set(acpHeaders(ws.merchantKey, randomUUID()))
      .send({});
    expect(cancel.status).toBe(405);
    await waitFor('the reconciler to complete the session', async () => {
      const got = await request(t.url)
        .get(`/acp/checkout_sessions/${session.id}`)
        .set(acpHeaders(ws.merchantKey));
      return got.body.status === 'completed';
    });
    const [{ intent_id: intentId, order_id: orderId }] = (
      await db.query('SELECT intent_id, order_id FROM checkout_sessions WHERE id = $1', [
        session.id,
      ])
    ).rows as { intent_id: string; order_id: string }[];
    expect(orderId).toMatch(/^ord_/);
    await expectSettledOnce(intentId);
    expect(
      await count(`outbox_events WHERE subject_id = $1 AND type = 'order_create'`, [orderId]),
    ).toBe(1);
  });

  it('an approved payment goes to the rail after the decision commits; the reconciler ends what the rail left open', async () => {
    const res = await payFreeFormQuote(t, {
      seller: ws.seller,
      buyer: ws.buyer,
      mandateId,
      amountPaise: 250_000,
    });
    expect(res.intent.status).toBe('requires_approval');
    const tx = t.get(Tx);
    let inTransaction: boolean | null = null;
    jest.spyOn(rail, 'debit').mockImplementationOnce(() => {
      inTransaction = tx.active;
      return Promise.reject(new Error('timeout'));
    });
    await t
      .get(ApprovalsService)
      .decide(ws.workspaceId, res.intent.approval_id as string, ws.personId, 'approved');
    expect(inTransaction).toBe(false);
    expect(await one('SELECT status FROM payment_intents WHERE id = $1', [res.intent.id])).toEqual({
      status: 'processing',
    });
    await waitFor('the reconciler to settle the approved payment', async () => {
      const row = await one<{ status: string }>(
        'SELECT status FROM payment_intents WHERE id = $1',
        [res.intent.id],
      );
      return row.status === 'settled';
    });
    await expectSettledOnce(res.intent.id);
    expect(
      await one<{ status: string }>(`SELECT status FROM quotes WHERE intent_id = $1`, [
        res.intent.id,
      ]),
    ).toEqual({ status: 'paid' });
  });

  it('a refund approved by a person is paid out after the decision commits; the reconciler ends one the rail left open', async () => {
    const paid = await payFreeFormQuote(t, {
      seller: ws.seller,
      buyer: ws.buyer,
      mandateId,
      amountPaise: 56_700,
    });
    const asked = await request(t.url)
      .post(`/v1/pay/intents/${paid.intent.id}/refunds`)
      .set(bearer(ws.seller.credential))
      .send({ amount_paise: 20_000 });
    expect(asked.status).toBe(201);
    jest.spyOn(rail, 'credit').mockRejectedValueOnce(new Error('timeout'));
    await t
      .get(ApprovalsService)
      .decide(ws.workspaceId, asked.body.approval_id as string, ws.personId, 'approved');
    expect(await one('SELECT status FROM refunds WHERE id = $1', [asked.body.id])).toEqual({
      status: 'processing',
    });
    // Processing counts against what is left to refund.
    const over = await request(t.url)
      .post(`/v1/pay/intents/${paid.intent.id}/refunds`)
      .set(bearer(ws.seller.credential))
      .send({ amount_paise: 36_701 });
    expect(over.status).toBe(400);
    await waitFor('the reconciler to pay the refund out', async () => {
      const row = await one<{ status: string }>('SELECT status FROM refunds WHERE id = $1', [
        asked.body.id,
      ]);
      return row.status === 'succeeded';
    });
    expect(await t.get(RailReconciler).reconcile('refund', asked.body.id as string)).toBe(false);
    expect(
      await one('SELECT amount_refunded_paise::int AS n FROM payment_intents WHERE id = $1', [
        paid.intent.id,
      ]),
    ).toEqual({ n: 20_000 });
    expect(await count('rail_transfers WHERE refund_id = $1', [asked.body.id])).toBe(1);
    expect(
      await count(`outbox_events WHERE subject_id = $1 AND type = 'refund.succeeded'`, [
        asked.body.id,
      ]),
    ).toBe(1);
  });

  it('a crash after the first transaction: the sweep finds the processing intent and settles it once', async () => {
    // What a process that died right after committing the first transaction leaves behind: the
    // intent processing and its quote processing, and no continuation left to run it.
    const quoteId = await quote(67_800);
    const payments = t.get(PaymentsService);
    const intent = await t.get(Tx).run(async (m) => {
      const out = await payments.pay(
        PaymentAttempt.start({ kind: 'quote', id: quoteId }),
        {
          buyerAgentId: ws.buyer.id,
          sellerAgentId: ws.seller.id,
          amountPaise: 67_800,
          mandateId,
          tokenId: null,
          description: `Quote ${quoteId}`,
          receiptContext: { quote_id: quoteId },
        },
        { rail: 'caller_applies' },
      );
      await m.query(`UPDATE quotes SET status = 'processing', intent_id = $2 WHERE id = $1`, [
        quoteId,
        out.intent.id,
      ]);
      return out.intent;
    });
    await waitFor('the sweep to settle the abandoned intent', async () => {
      const row = await one<{ status: string }>(
        'SELECT status FROM payment_intents WHERE id = $1',
        [intent.id],
      );
      return row.status === 'settled';
    });
    await expectSettledOnce(intent.id);
    expect(await one('SELECT status FROM quotes WHERE id = $1', [quoteId])).toEqual({
      status: 'paid',
    });
  });
});
