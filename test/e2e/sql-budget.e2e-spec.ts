import { randomUUID } from 'node:crypto';

import request from 'supertest';

import { createMandate } from '../factories/mandate.factory';
import { mandateDelegateBody } from '../factories/payment-fixtures';
import { startApp, TestApp } from '../support/app';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';
import { shortSql, SqlCounter } from '../support/sql-counter';

/**
 * SQL statements per request on the money path (docs/testing.md "Tests", "SQL budgets"): one ACP purchase,
 * create checkout session → delegate_payment → complete, ≤ ₹2,000 on the sandbox rail under a
 * standing mandate, every statement counted (BEGIN, COMMIT and SAVEPOINT included) by
 * `SqlCounter` (test/support/sql-counter.ts).
 *
 * `target` is where each step must end up. `ceiling` is what a step may cost today while it is
 * still above its target: the test fails as soon as a step costs more than its ceiling (a
 * regression), and the ceiling is lowered to the target as the statements are removed. A step with
 * no ceiling is held to its target.
 */
const SQL_BUDGET: Record<Step, { target: number; ceiling?: number }> = {
  create: { target: 5 },
  delegate_payment: { target: 5 },
  complete: { target: 12 },
};

/**
 * Round trips per request (docs/architecture.md "Round trips"): the times the request waits on
 * Postgres. A transaction's BEGIN rides with its first statement and its COMMIT with the statement
 * that writes what was queued for the commit (src/database/carried.ts); statements written back to
 * back share one wait (pg's pipeline mode): the handler's first reads behind the Idempotency-Key's
 * claim (`@Idempotent({ pipelined: true })`); complete's token lock, the buyer agent's and the
 * mandate's locks and the day's spend behind the session's lock (PaymentsService.sendPayerLocks).
 * Was 5 / 5 / 12 (one per statement), then 2 / 2 / 5.
 */
const ROUND_TRIPS: Record<Step, number> = {
  create: 2,
  delegate_payment: 2,
  complete: 4,
};

type Step = 'create' | 'delegate_payment' | 'complete';

const allowed = (step: Step) => SQL_BUDGET[step].ceiling ?? SQL_BUDGET[step].target;

describe('SQL budget of an ACP purchase', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let mandateId: string;
  let sql: SqlCounter;

  beforeAll(async () => {
    // The sandbox rail, and the credential cache warm (it is on while the LISTEN connection is).
    t = await startApp({ rail: 'sandbox', pgListen: true });
    ws = await seedWorkspace(t);
    await request(t.url)
      .put(`/v1/pay/agents/${ws.seller.id}/listing`)
      .set('Authorization', `Bearer ${ws.seller.credential}`)
      .send({
        listed: true,
        offers: [
          { sku: 'sku_tea_1kg', name: 'Assam tea 1 kg', unit_paise: 45_000, category: 'food.tea' },
        ],
      })
      .expect(200);
    mandateId = await createMandate(t, { workspaceId: ws.workspaceId, agentId: ws.buyer.id });
    sql = SqlCounter.install(t);
  });
  afterAll(async () => {
    sql.uninstall();
    await t.close();
  });

  /** Statements of each step sent without a name (not prepared), BEGIN and COMMIT aside. */
  const unprepared: Record<Step, string[]> = { create: [], delegate_payment: [], complete: [] };

  /** Round trips of each step of the last purchase. */
  const roundTrips: Record<Step, number> = { create: 0, delegate_payment: 0, complete: 0 };

  /** One purchase; returns each step's statements. */
  async function purchase(): Promise<Record<Step, string[]>> {
    const created = await sql.measure(() =>
      request(t.url)
        .post('/acp/checkout_sessions')
        .set(acpHeaders(ws.merchantKey, randomUUID()))
        .send({
          line_items: [{ id: 'sku_tea_1kg', quantity: 2 }],
          currency: 'inr',
          capabilities: {},
        }),
    );
    expect(created.response.status).toBe(201);
    const sessionId = created.response.body.id as string;

    const delegated = await sql.measure(() =>
      request(t.url)
        .post('/acp/agentic_commerce/delegate_payment')
        .set(acpHeaders(ws.buyerKey, randomUUID()))
        .send(
          mandateDelegateBody({
            mandateId,
            sessionId,
            merchantId: ws.seller.id,
            maxAmountPaise: 90_000,
            now: t.clock.now(),
          }),
        ),
    );
    expect(delegated.response.status).toBe(201);
    const token = delegated.response.body.id as string;

    const completed = await sql.measure(() =>
      request(t.url)
        .post(`/acp/checkout_sessions/${sessionId}/complete`)
        .set(acpHeaders(ws.merchantKey, randomUUID()))
        .send({
          payment_data: {
            handler_id: 'svc_upi_mandate',
            instrument: {
              type: 'svc_mandate',
              credential: { type: 'svc_delegated_token', token },
            },
          },
        }),
    );
    expect(completed.response.status).toBe(200);
    expect(completed.response.body.status).toBe('completed');
    const receiptId = completed.response.body.metadata.svc_receipt_id as string;

    // The purchase really happened: settled intent of ₹900, its receipt chain, the event.
    const [intent] = await t.db.query<{ status: string; amount: number; receipt_id: string }[]>(
      `SELECT status, amount_paise::int AS amount, receipt_id FROM payment_intents WHERE source_kind = 'checkout' AND source_id = $1`,
      [sessionId],
    );
    expect(intent).toEqual({ status: 'settled', amount: 90_000, receipt_id: receiptId });
    const [{ entries }] = await t.db.query<{ entries: number }[]>(
      `SELECT count(*)::int AS entries FROM chain_entries WHERE chain_id = $1`,
      [receiptId],
    );
    expect(entries).toBe(1);

    const plain = (statements: string[]) =>
      statements.filter((q) => q !== 'BEGIN' && q !== 'COMMIT');
    unprepared.create = plain(created.unprepared);
    unprepared.delegate_payment = plain(delegated.unprepared);
    unprepared.complete = plain(completed.unprepared);
    roundTrips.create = created.roundTrips;
    roundTrips.delegate_payment = delegated.roundTrips;
    roundTrips.complete = completed.roundTrips;
    return {
      create: created.statements,
      delegate_payment: delegated.statements,
      complete: completed.statements,
    };
  }

  it('stays within each step’s statement budget (warm caches)', async () => {
    // The first purchase warms the credential cache and the signing key; the second is measured.
    const cold = await purchase();
    const warm = await purchase();
    const report = (Object.keys(SQL_BUDGET) as Step[])
      .map((step) => {
        const { target, ceiling } = SQL_BUDGET[step];
        const lines = warm[step].map((s, i) => `  ${String(i + 1).padStart(2)}. ${shortSql(s)}`);
        return [
          `${step}: ${warm[step].length} statements in ${roundTrips[step]} round trips (cold ${cold[step].length}; target ${target}${
            ceiling !== undefined ? `, ceiling ${ceiling}` : ''
          })`,
          ...lines,
        ].join('\n');
      })
      .join('\n');
    // The measured statements, for whoever removes the next ones.
    process.stdout.write(`\nSQL budget, statements per request:\n${report}\n`);

    for (const step of Object.keys(SQL_BUDGET) as Step[]) {
      // The guards answered from the warm credential cache: the transaction is the first thing.
      expect({ step, first: warm[step][0] }).toEqual({ step, first: 'BEGIN' });
      // The idempotency claim needs no savepoint, and a request writes its audit rows once per
      // transaction.
      expect({ step, savepoints: warm[step].filter((q) => /SAVEPOINT/.test(q)) }).toEqual({
        step,
        savepoints: [],
      });
      const transactions = warm[step].filter((q) => q === 'BEGIN').length;
      const auditWrites = warm[step].filter((q) => /INSERT INTO audit_events/.test(q)).length;
      expect({ step, auditWritesAtMostOnePerTransaction: auditWrites <= transactions }).toEqual({
        step,
        auditWritesAtMostOnePerTransaction: true,
      });
      // Every statement but BEGIN and COMMIT is a named prepared statement (src/database/sql.ts).
      expect({ step, unprepared: unprepared[step] }).toEqual({ step, unprepared: [] });
      const statements = warm[step].length;
      expect({ step, statements, withinBudget: statements <= allowed(step) }).toEqual({
        step,
        statements,
        withinBudget: true,
      });
      expect({
        step,
        roundTrips: roundTrips[step],
        within: roundTrips[step] <= ROUND_TRIPS[step],
      }).toEqual({ step, roundTrips: roundTrips[step], within: true });
    }
    // complete's first statements keep the lock order though they share a round trip: the session,
    // the token, the buyer agent (then the mandate), and the day's spend read under the buyer's lock.
    const firstOf = (re: RegExp) => warm.complete.findIndex((q) => re.test(q));
    const order = [
      firstOf(/FROM checkout_sessions WHERE id = \$1 FOR NO KEY UPDATE/),
      firstOf(/FROM delegated_tokens t WHERE t\.id = \$1 FOR NO KEY UPDATE/),
      firstOf(/^WITH buyer AS \(SELECT .* FROM agents .* FOR NO KEY UPDATE/),
      firstOf(/FROM buyer_daily_spend/),
    ];
    expect(order.every((at, i) => at > 0 && (i === 0 || at > order[i - 1]))).toEqual(true);
  });

  it('counts only the measured request’s statements, BEGIN and COMMIT included', async () => {
    const key = randomUUID();
    const send = () =>
      request(t.url)
        .post('/acp/checkout_sessions')
        .set(acpHeaders(ws.merchantKey, key))
        .send({ line_items: [{ id: 'sku_tea_1kg' }], currency: 'inr', capabilities: {} });
    const first = await sql.measure(send);
    expect(first.response.status).toBe(201);
    // The guard ran before the interceptor opened the transaction, and sent nothing.
    expect(first.statements[0]).toBe('BEGIN');
    // An authenticated read: the guard answers from the warm credential cache (no credential
    // table is read; what is left is the checkout service's own reads).
    const read = await sql.measure(() =>
      request(t.url)
        .get(`/acp/checkout_sessions/${first.response.body.id as string}`)
        .set(acpHeaders(ws.merchantKey)),
    );
    expect(read.response.status).toBe(200);
    expect(read.statements.length).toBeGreaterThan(0);
    expect(read.statements.filter((s) => /protocol_keys|api_keys|person_sessions/.test(s))).toEqual(
      [],
    );
    // A key replay: BEGIN with the record's lookup, the handler's first read beside it (its answer
    // discarded), ROLLBACK: nothing written, two round trips.
    const replay = await sql.measure(send);
    expect(replay.response.headers['idempotent-replayed']).toBe('true');
    expect(replay.statements[0]).toMatch(/^BEGIN$/);
    expect(replay.statements[1]).toMatch(/^WITH existing AS .*idempotency_records/);
    expect(replay.statements.at(-1)).toBe('ROLLBACK');
    expect(replay.roundTrips).toBe(2);
    expect(replay.statements.some((s) => /checkout_sessions/.test(s))).toBe(false);
  });
});
