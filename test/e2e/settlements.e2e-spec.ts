import request from 'supertest';

import { Secret } from '../../src/config/app.config';
import { OperatorsService } from '../../src/ops/operators.service';
import { SettlementReconciler } from '../../src/settlements/settlement-reconciler';
import { signIn } from '../factories/app-session.factory';
import { bearer, payFreeFormQuote } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { startApp, TestApp } from '../support/app';
import { startTestGateway, TestGateway } from '../support/gateway';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

const SYSTEM = { type: 'system' as const, id: 'test' };

/**
 * Settlements and reconciliation (docs/gateway.md "Settlements and reconciliation") on the gateway rail,
 * against the simulator: payments made through the pipeline, a settlement cycle with injected
 * mismatches (amount, missing, unknown), the reconciler's lines (fee, tax, UTR, matched intent),
 * the missing grace period at its boundary, GET /v1/pay/settlements (the seller's own lines only)
 * and the operators' page.
 */
describe('settlements and reconciliation (gateway simulator)', () => {
  const GRACE_MS = 3_600_000;
  let gw: TestGateway;
  let t: TestApp;
  let ws: SeededWorkspace;
  let other: SeededWorkspace;
  let mandateId: string;

  beforeAll(async () => {
    gw = await startTestGateway();
    t = await startApp({
      rail: 'gateway',
      gateway: {
        apiUrl: gw.sim.url,
        checkoutUrl: gw.sim.url,
        keyId: gw.keys.keyId,
        keySecret: new Secret(gw.keys.keySecret),
        webhookSecret: new Secret(gw.keys.webhookSecret),
        timeoutMs: 5000,
      },
      railReconcileAfterMs: 60_000,
      settlements: { reconcileEveryMs: 3_600_000, lookbackDays: 2, missingAfterMs: GRACE_MS },
    });
    ws = await seedWorkspace(t);
    other = await seedWorkspace(t);
    mandateId = await createMandate(t, { workspaceId: ws.workspaceId, agentId: ws.buyer.id });
  });
  afterAll(async () => {
    await t?.close();
    await gw?.close();
  });

  const pay = async (amountPaise: number) => {
    const { intent } = await payFreeFormQuote(t, {
      seller: ws.seller,
      buyer: ws.buyer,
      mandateId,
      amountPaise,
    });
    expect(intent.status).toBe('settled');
    const [row] = await t.db.query<{ gateway_payment_id: string }[]>(
      `SELECT gateway_payment_id FROM rail_transfers WHERE intent_id = $1 AND direction = 'debit' AND status = 'succeeded'`,
      [intent.id],
    );
    expect(row.gateway_payment_id).toMatch(/^pay_/);
    return { intentId: intent.id, paymentId: row.gateway_payment_id };
  };

  const lines = () =>
    t.db.query<Record<string, unknown>[]>(
      `SELECT kind, gateway_entity_id, intent_id, amount_paise::int AS amount, expected_amount_paise::int AS expected,
              fee_paise::int AS fee, tax_paise::int AS tax, credit_paise::int AS credit, utr,
              gateway_settlement_id, mismatch, seller_agent_id
         FROM settlement_lines ORDER BY gateway_entity_id`,
    );

  let a: { intentId: string; paymentId: string };
  let b: { intentId: string; paymentId: string };
  let c: { intentId: string; paymentId: string };

  it('matches each report line to its intent with fee, tax and UTR, and flags amount and unknown lines', async () => {
    a = await pay(10_000);
    b = await pay(12_500);
    c = await pay(13_875);
    gw.sim.control.injectSettlement({ kind: 'amount', paymentId: b.paymentId, delta: -100 });
    gw.sim.control.injectSettlement({ kind: 'missing', paymentId: c.paymentId });
    gw.sim.control.injectSettlement({ kind: 'unknown', amount: 7_700 });
    const settlement = gw.sim.control.settle();
    expect(settlement).not.toBeNull();

    const summary = await t.get(SettlementReconciler).run();
    // C is withheld by the gateway but is younger than the grace period: not missing yet.
    expect(summary).toEqual({ lines: 3, matched: 1, amount: 1, unknown: 1, missing: 0 });

    const rows = await lines();
    const byId = new Map(rows.map((r) => [r.gateway_entity_id, r]));
    expect(byId.get(a.paymentId)).toMatchObject({
      kind: 'payment',
      intent_id: a.intentId,
      amount: 10_000,
      expected: 10_000,
      fee: 200,
      tax: 36,
      credit: 9_764,
      utr: settlement!.utr,
      gateway_settlement_id: settlement!.id,
      mismatch: null,
      seller_agent_id: ws.seller.id,
    });
    expect(byId.get(b.paymentId)).toMatchObject({
      intent_id: b.intentId,
      amount: 12_400,
      expected: 12_500,
      mismatch: 'amount',
    });
    const unknown = rows.filter((r) => r.mismatch === 'unknown');
    expect(unknown).toHaveLength(1);
    expect(unknown[0]).toMatchObject({ intent_id: null, amount: 7_700, seller_agent_id: null });
    expect(byId.has(c.paymentId)).toBe(false);

    const [s] = await t.db.query<Record<string, unknown>[]>(
      `SELECT utr, fees_paise::int AS fees, tax_paise::int AS tax FROM gateway_settlements WHERE id = $1`,
      [settlement!.id],
    );
    expect(s).toEqual({ utr: settlement!.utr, fees: settlement!.fees, tax: settlement!.tax });
  });

  it('marks a payment no report carries as missing only after the grace period', async () => {
    t.clock.advance(GRACE_MS - 60_000);
    expect((await t.get(SettlementReconciler).run()).missing).toBe(0);
    t.clock.advance(120_000);
    const summary = await t.get(SettlementReconciler).run();
    expect(summary.missing).toBe(1);
    const [row] = (await lines()).filter((r) => r.gateway_entity_id === c.paymentId);
    expect(row).toMatchObject({
      intent_id: c.intentId,
      expected: 13_875,
      amount: null,
      utr: null,
      mismatch: 'missing',
    });
  });

  it('is idempotent: another run (and another cycle with nothing new) changes no row', async () => {
    const before = await lines();
    gw.sim.control.settle();
    const summary = await t.get(SettlementReconciler).run();
    expect(summary).toMatchObject({ lines: 3, missing: 0 });
    expect(await lines()).toEqual(before);
    expect(
      (await t.db.query<{ n: number }[]>('SELECT count(*)::int AS n FROM settlement_lines'))[0].n,
    ).toBe(4);
  });

  it('a line settled later replaces its missing row', async () => {
    const d = await pay(20_000);
    t.clock.advance(GRACE_MS + 1);
    await t.get(SettlementReconciler).run();
    let [row] = (await lines()).filter((r) => r.gateway_entity_id === d.paymentId);
    expect(row.mismatch).toBe('missing');
    const settlement = gw.sim.control.settle();
    await t.get(SettlementReconciler).run();
    [row] = (await lines()).filter((r) => r.gateway_entity_id === d.paymentId);
    expect(row).toMatchObject({
      mismatch: null,
      amount: 20_000,
      fee: 400,
      tax: 72,
      utr: settlement!.utr,
    });
  });

  it('GET /v1/pay/settlements shows a seller its own lines only, filtered and paginated', async () => {
    const all = await request(t.url)
      .get('/v1/pay/settlements?limit=2')
      .set(bearer(ws.seller.credential));
    expect(all.status).toBe(200);
    expect(all.body.data).toHaveLength(2);
    expect(all.body.has_more).toBe(true);
    const rest = await request(t.url)
      .get(`/v1/pay/settlements?limit=10&starting_after=${all.body.next_cursor as string}`)
      .set(bearer(ws.seller.credential));
    const ids = [...all.body.data, ...rest.body.data].map(
      (l: { gateway_entity_id: string }) => l.gateway_entity_id,
    );
    // Four payments of this seller (A, B, C missing, D); never the unknown line.
    expect(ids.sort()).toHaveLength(4);
    expect(ids).toEqual(expect.arrayContaining([a.paymentId, b.paymentId, c.paymentId]));
    const amount = await request(t.url)
      .get('/v1/pay/settlements?mismatch=amount')
      .set(bearer(ws.seller.credential));
    expect(amount.body.data).toEqual([
      expect.objectContaining({
        object: 'settlement_line',
        intent_id: b.intentId,
        amount_paise: 12_400,
        expected_amount_paise: 12_500,
        mismatch: 'amount',
      }),
    ]);
    const missing = await request(t.url)
      .get('/v1/pay/settlements?mismatch=mismatched')
      .set(bearer(ws.seller.credential));
    expect(missing.body.data.map((l: { mismatch: string }) => l.mismatch).sort()).toEqual([
      'amount',
      'missing',
    ]);
    for (const who of [ws.buyer, other.seller]) {
      const none = await request(t.url).get('/v1/pay/settlements').set(bearer(who.credential));
      expect(none.status).toBe(200);
      expect(none.body.data).toEqual([]);
    }
    const bad = await request(t.url)
      .get('/v1/pay/settlements?mismatch=unknown')
      .set(bearer(ws.seller.credential));
    expect(bad.status).toBe(400);
    expect((await request(t.url).get('/v1/pay/settlements')).status).toBe(401);
  });

  it('/app/ops/settlements: 404 for anyone but an operator, who sees every mismatch', async () => {
    expect((await request(t.url).get('/app/ops/settlements')).status).toBe(404);
    const session = await signIn(t, ws.email, ws.password);
    const page = () => request(t.url).get('/app/ops/settlements').set('Cookie', session.cookie);
    const refused = await page();
    expect(refused.status).toBe(404);
    expect(refused.text).not.toContain('Mismatches');

    // The operator role of the operator tools (src/ops): the same people as the queue dashboard.
    const issued = await t
      .get(OperatorsService)
      .ensureOperator(
        { email: 'recon@ops.test', name: 'Reconciliation', workspaceName: 'Operators' },
        SYSTEM,
      );
    const operator = await signIn(t, issued.email, issued.password);
    const res = await request(t.url).get('/app/ops/settlements').set('Cookie', operator.cookie);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toContain('no-store');
    expect(res.text).toContain(`data-mismatch="unknown"`);
    expect(res.text).toContain(`data-mismatch="amount"`);
    expect(res.text).toContain(`data-mismatch="missing"`);
    expect(res.text).toContain(c.paymentId);
    // A credential is never a way in, even for an operator's session.
    const withKey = await request(t.url)
      .get('/app/ops/settlements')
      .set('Cookie', operator.cookie)
      .set('Authorization', `Bearer ${ws.apiKey}`);
    expect(withKey.status).toBe(404);
  });
});
