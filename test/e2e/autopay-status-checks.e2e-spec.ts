import request from 'supertest';

import { ApprovalsService } from '../../src/approvals/approvals.service';
import type { Clock } from '../../src/common/clock';
import { MandatesService } from '../../src/mandates/mandates.service';
import { OperatorsService } from '../../src/ops/operators.service';
import { RailReconciler } from '../../src/payments/rail-reconciler';
import { PAYMENT_RAIL, PaymentRail } from '../../src/rails/payment-rail';
import { RecurringChargesService } from '../../src/recurring/recurring-charges.service';
import { SettlementReconciler } from '../../src/settlements/settlement-reconciler';
import { signIn } from '../factories/app-session.factory';
import { bearer } from '../factories/intent.factory';
import { GatewayApp, startGatewayApp, waitFor } from '../support/gateway-app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * Status checks within NPCI limits (docs/rules.md `autopay.status_check_max`,
 * `autopay.status_check_min_spacing`; docs/recurring.md "Recurring payments (UPI AutoPay)"): an AutoPay debit
 * that stays pending at the gateway simulator (a `hang`, webhooks dropped) is asked about exactly
 * 3 times, at least 90 s apart by the service's clock, then left to the daily settlement
 * reconciliation, which settles it from the gateway's report once the payment is captured.
 */
describe('AutoPay status checks (gateway rail)', () => {
  let app: GatewayApp;
  let ws: SeededWorkspace;
  let clock: Clock | null = null;
  const SECOND = 1000;
  const HOUR = 3_600_000;

  const ist = (y: number, mo: number, d: number, h: number, mi = 0) =>
    new Date(Date.UTC(y, mo - 1, d, h, mi) - 330 * 60_000);

  /** Moves the service's (and the simulator's) clock so that now is `at`. */
  function setNow(at: Date): void {
    app.t.clock.reset();
    app.t.clock.advance(at.getTime() - Date.now());
  }

  const one = async <T>(sql: string, params: unknown[] = []): Promise<T> =>
    (await app.t.db.query<T[]>(sql, params))[0];

  beforeAll(async () => {
    app = await startGatewayApp({
      overrides: { runWorkers: false },
      sim: { clock: () => (clock ? clock.now().getTime() : Date.now()) },
    });
    clock = app.t.clock;
    ws = await seedWorkspace(app.t);
  });
  afterAll(async () => {
    app?.t.clock.reset();
    await app?.close();
  });

  it('asks the gateway exactly 3 times, at least 90 s apart, then leaves it to the daily reconciliation', async () => {
    setNow(ist(2026, 12, 1, 8, 0));
    const created = await request(app.t.url)
      .post('/v1/pay/mandates')
      .set(bearer(ws.buyer.credential))
      .send({
        kind: 'recurring',
        recurring: { billing_cycle: 'daily' },
        per_payment_cap_paise: 2_000_000,
        payee_agent_ids: [ws.seller.id],
        valid_until: new Date(app.t.clock.now().getTime() + 60 * 24 * HOUR).toISOString(),
        description: 'Daily chai subscription',
      });
    expect(created.status).toBe(201);
    const mandateId = created.body.id as string;
    await app.t.get(MandatesService).authorise(ws.workspaceId, mandateId, ws.personId);
    const scheduled = await request(app.t.url)
      .post(`/v1/pay/mandates/${mandateId}/charges`)
      .set(bearer(ws.seller.credential))
      .send({ description: 'Chai for a day', amount_paise: 150_000 });
    expect(scheduled.status).toBe(201);
    const chargeId = scheduled.body.id as string;
    // The first debit of a mandate needs the person's authentication: they approve it.
    const { approval_id: approvalId } = await one<{ approval_id: string }>(
      'SELECT approval_id FROM recurring_charges WHERE id = $1',
      [chargeId],
    );
    await app.t.get(ApprovalsService).decide(ws.workspaceId, approvalId, ws.personId, 'approved');

    // The debit hangs at the gateway (the client gives up: no definite answer); no webhook arrives.
    app.gw.sim.control.webhooks({ drop: true });
    app.gw.sim.control.next('hang');
    const rail = app.t.app.get<PaymentRail>(PAYMENT_RAIL);
    const asked: number[] = [];
    const debitStatus = rail.debitStatus.bind(rail);
    const spy = jest.spyOn(rail, 'debitStatus').mockImplementation(async (req) => {
      asked.push(app.t.clock.now().getTime());
      return debitStatus(req);
    });
    try {
      setNow(new Date(new Date(scheduled.body.debit_at).getTime() + 60 * SECOND));
      expect(await app.t.get(RecurringChargesService).attempt(chargeId)).toBe('debiting');
      const intent = await one<{ id: string; status: string }>(
        `SELECT id, status FROM payment_intents WHERE source_kind = 'recurring' AND source_id = $1`,
        [chargeId],
      );
      expect(intent.status).toBe('processing');
      const pacing = async () =>
        one<{ checks: number; last_asked_at: Date; left_at: Date | null }>(
          'SELECT checks, last_asked_at, left_at FROM rail_status_checks WHERE intent_id = $1',
          [intent.id],
        );
      const debitAskedAt = (await pacing()).last_asked_at.getTime();
      const reconciler = app.t.get(RailReconciler);

      // Each round: just before the spacing ends nothing is asked; once it has, one check.
      let last = debitAskedAt;
      for (let check = 1; check <= 3; check++) {
        setNow(new Date(last + 89 * SECOND));
        await reconciler.sweep();
        expect(asked).toHaveLength(check - 1);
        setNow(new Date(last + 90 * SECOND));
        await reconciler.sweep();
        await reconciler.reconcile('intent', intent.id);
        expect(asked).toHaveLength(check);
        expect((await pacing()).checks).toBe(check);
        last = asked[check - 1];
      }
      expect(asked[0] - debitAskedAt).toBeGreaterThanOrEqual(90 * SECOND);
      expect(asked[1] - asked[0]).toBeGreaterThanOrEqual(90 * SECOND);
      expect(asked[2] - asked[1]).toBeGreaterThanOrEqual(90 * SECOND);

      // The checks ran out: left to the daily reconciliation, recorded and audited; none after.
      const left = await pacing();
      expect(left.left_at).not.toBeNull();
      expect(
        await one(
          `SELECT action, data FROM audit_events WHERE subject_id = $1 AND action = 'payment.status_checks_exhausted'`,
          [intent.id],
        ),
      ).toMatchObject({ data: { checks: 3, left_to: 'daily_settlement_reconciliation' } });
      for (const later of [2 * 60 * SECOND, HOUR, 6 * HOUR]) {
        setNow(new Date(last + later));
        await reconciler.sweep();
        await reconciler.reconcile('intent', intent.id);
      }
      expect(asked).toHaveLength(3);
      expect(await one('SELECT status FROM payment_intents WHERE id = $1', [intent.id])).toEqual({
        status: 'processing',
      });
      // Operators see it waiting for the daily reconciliation.
      const issued = await app.t
        .get(OperatorsService)
        .ensureOperator(
          { email: 'autopay@ops.test', name: 'AutoPay checks', workspaceName: 'Operators' },
          { type: 'system', id: 'test' },
        );
      const operator = await signIn(app.t, issued.email, issued.password);
      const opsPage = () =>
        request(app.t.url).get('/app/ops/settlements').set('Cookie', operator.cookie);
      const waiting = await opsPage();
      expect(waiting.status).toBe(200);
      expect(waiting.text).toContain(`data-left-intent="${intent.id}"`);

      // The gateway lets the payment go (captured); the report carries it; the reconciliation ends it.
      setNow(new Date(last + 20 * HOUR));
      expect(app.gw.sim.control.release('succeed')).toBe(1);
      // The simulator's settlement cycle pays out the payment once it is captured.
      await waitFor(
        'the released payment in a settlement',
        () => app.gw.sim.control.settle() !== null,
      );
      const summary = await app.t.get(SettlementReconciler).run();
      expect(summary.unknown).toBe(0);
      expect(await one('SELECT status FROM payment_intents WHERE id = $1', [intent.id])).toEqual({
        status: 'settled',
      });
      expect(
        await one<{ mismatch: string | null; intent_id: string }>(
          `SELECT mismatch, intent_id FROM settlement_lines WHERE intent_id = $1`,
          [intent.id],
        ),
      ).toEqual({ mismatch: null, intent_id: intent.id });
      expect(
        await one<{ n: number }>(
          `SELECT count(*)::int AS n FROM outbox_events WHERE type = 'intent.settled' AND subject_id = $1`,
          [intent.id],
        ),
      ).toEqual({ n: 1 });
      expect(await one('SELECT status FROM recurring_charges WHERE id = $1', [chargeId])).toEqual({
        status: 'settled',
      });
      expect((await opsPage()).text).not.toContain(`data-left-intent="${intent.id}"`);
      // A second run changes nothing and asks nothing.
      await app.t.get(SettlementReconciler).run();
      await reconciler.sweep();
      expect(asked).toHaveLength(3);
    } finally {
      spy.mockRestore();
      app.gw.sim.control.webhooks({ drop: false });
    }
  });
});
