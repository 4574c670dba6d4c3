import request from 'supertest';

import { ApprovalsService } from '../../src/approvals/approvals.service';
import type { Clock } from '../../src/common/clock';
import { MandatesService } from '../../src/mandates/mandates.service';
import { RecurringChargesService } from '../../src/recurring/recurring-charges.service';
import { bearer } from '../factories/intent.factory';
import { GatewayApp, startGatewayApp, waitFor } from '../support/gateway-app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * A recurring charge on the gateway rail against the simulator, whose clock is the service's
 * (docs/recurring.md "Recurring payments (UPI AutoPay)"): the recurring mandate registers an AutoPay token
 * with its billing cycle and cap (the simulator's control API approves it as the person would in
 * MODE=test), the debit is a recurring payment on that token ≥ 24 h after the notice, outside the
 * blocked windows, and it ends on a signed receipt and intent.settled; revoking the mandate cancels
 * the token at the gateway.
 */
describe('gateway rail: a recurring AutoPay charge', () => {
  let app: GatewayApp;
  let ws: SeededWorkspace;
  let clock: Clock | null = null;

  const ist = (y: number, mo: number, d: number, h: number, mi = 0) =>
    new Date(Date.UTC(y, mo - 1, d, h, mi) - 330 * 60_000);
  const setNow = (at: Date) => {
    app.t.clock.reset();
    app.t.clock.advance(at.getTime() - Date.now());
  };

  beforeAll(async () => {
    app = await startGatewayApp({
      overrides: { runWorkers: false },
      sim: { clock: () => (clock ? clock.now().getTime() : Date.now()) },
    });
    clock = app.t.clock;
    ws = await seedWorkspace(app.t);
  });
  afterAll(async () => {
    app.t.clock.reset();
    await app?.close();
  });

  it('registers the mandate’s cycle with the gateway and debits on its token, once, to a receipt', async () => {
    setNow(ist(2026, 12, 3, 15, 0));
    const created = await request(app.t.url)
      .post('/v1/pay/mandates')
      .set(bearer(ws.buyer.credential))
      .send({
        kind: 'recurring',
        recurring: { billing_cycle: 'monthly' },
        per_payment_cap_paise: 99_900,
        payee_agent_ids: [ws.seller.id],
        valid_until: ist(2027, 6, 1, 0, 0).toISOString(),
      });
    expect(created.status).toBe(201);
    const mandateId = created.body.id as string;
    await app.t.get(MandatesService).authorise(ws.workspaceId, mandateId, ws.personId);
    // Registered with the gateway as soon as the person authorised it, before any charge.
    await waitFor('the AutoPay token registered at authorisation', async () => {
      const rows = await app.t.db.query<{ status: string }[]>(
        `SELECT status FROM gateway_mandate_tokens WHERE mandate_id = $1`,
        [mandateId],
      );
      return rows[0]?.status === 'confirmed';
    });

    const charge = await request(app.t.url)
      .post(`/v1/pay/mandates/${mandateId}/charges`)
      .set(bearer(ws.seller.credential))
      .send({ amount_paise: 49_900, description: 'December plan' });
    expect(charge.status).toBe(201);
    // The mandate's first debit waits for the person's approval, whatever its amount.
    expect(charge.body).toMatchObject({ status: 'awaiting_authorisation', first_debit: true });
    const [pending] = await app.t.db.query<{ approval_id: string }[]>(
      `SELECT approval_id FROM recurring_charges WHERE id = $1`,
      [charge.body.id],
    );
    await app.t
      .get(ApprovalsService)
      .decide(ws.workspaceId, pending.approval_id, ws.personId, 'approved');
    // 15:00 IST + 24 h is allowed (13:00–17:00): exactly a day after the notice.
    expect(
      new Date(charge.body.debit_at).getTime() - new Date(charge.body.notice_at).getTime(),
    ).toBe(24 * 3_600_000);
    const svc = app.t.get(RecurringChargesService);
    expect(await svc.attempt(charge.body.id)).toBe('not_due');

    setNow(new Date(new Date(charge.body.debit_at).getTime() + 1000));
    expect(await svc.attempt(charge.body.id)).toBe('debiting');
    const [row] = await app.t.db.query<{ status: string; intent_id: string }[]>(
      `SELECT status, intent_id FROM recurring_charges WHERE id = $1`,
      [charge.body.id],
    );
    expect(row.status).toBe('settled');
    const [intent] = await app.t.db.query<
      { status: string; rail: string; rail_reference: string; receipt_id: string }[]
    >(`SELECT status, rail, rail_reference, receipt_id FROM payment_intents WHERE id = $1`, [
      row.intent_id,
    ]);
    expect(intent).toMatchObject({ status: 'settled', rail: 'gateway' });
    expect(intent.receipt_id).toMatch(/^rcp_/);

    // The AutoPay token carries the mandate's cycle and cap; the debit is a payment on it.
    const [token] = await app.t.db.query<
      { customer_id: string; token_id: string; status: string }[]
    >(`SELECT customer_id, token_id, status FROM gateway_mandate_tokens WHERE mandate_id = $1`, [
      mandateId,
    ]);
    expect(token.status).toBe('confirmed');
    // The notice names both mandate references: ours and the gateway's UPI mandate (token).
    expect(charge.body.mandate_reference).toEqual({
      id: mandateId,
      upi_mandate_ref: token.token_id,
    });
    const [notice] = await app.t.db.query<{ payload: { data: { mandate_reference: unknown } } }[]>(
      `SELECT payload FROM outbox_events WHERE type = 'recurring.pre_debit_notice' AND subject_id = $1`,
      [charge.body.id],
    );
    expect(notice.payload.data.mandate_reference).toEqual({
      id: mandateId,
      upi_mandate_ref: token.token_id,
    });
    const tokens = await app.gw.client.listTokens(token.customer_id);
    expect(tokens).toEqual([
      expect.objectContaining({ id: token.token_id, frequency: 'monthly', max_amount: 99_900 }),
    ]);
    const payment = await app.gw.client.getPayment(intent.rail_reference);
    expect(payment).toMatchObject({ status: 'captured', amount: 49_900, token_id: token.token_id });
    await waitFor('intent.settled event', async () => {
      const [e] = await app.t.db.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM outbox_events WHERE type = 'intent.settled' AND subject_id = $1`,
        [row.intent_id],
      );
      return e.n === 1;
    });

    // The person revokes the mandate: its AutoPay token is cancelled at the gateway.
    await app.t
      .get(MandatesService)
      .revoke(ws.workspaceId, mandateId, { type: 'person', id: ws.personId });
    await waitFor('the token cancelled at the gateway', async () => {
      const [t] = await app.gw.client.listTokens(token.customer_id);
      return t.recurring_details.status === 'cancelled';
    });
    await waitFor('the cancellation recorded', async () => {
      const [r] = await app.t.db.query<{ status: string }[]>(
        `SELECT status FROM gateway_mandate_tokens WHERE mandate_id = $1`,
        [mandateId],
      );
      return r.status === 'cancelled';
    });
  });
});
