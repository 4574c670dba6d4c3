import { randomUUID } from 'node:crypto';

import request from 'supertest';

import { ApprovalsService } from '../../src/approvals/approvals.service';
import type { Clock } from '../../src/common/clock';
import { GatewayEventsReview } from '../../src/gateway/gateway-events-review.service';
import { FOREIGN_REASONS } from '../../src/gateway/gateway-order-matcher';
import { GatewayWebhooksService } from '../../src/gateway/gateway-webhooks.service';
import { MandatesService } from '../../src/mandates/mandates.service';
import { RecurringChargesService } from '../../src/recurring/recurring-charges.service';
import { bearer } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { createQuote, GatewayApp, startGatewayApp, waitFor } from '../support/gateway-app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * No gateway event about our own payments is orphaned (docs/gateway.md "Events for no order of
 * ours"; issue 40 item 2): a Reserve Pay debit (whose order the gateway opens inside the debit
 * call) and an AutoPay debit each settle and leave no event `unmatched` on the operators' review
 * list, also when the app died after the gateway's answer and before recording the order (the
 * order is found by the receipt we sent), and when the gateway could not be asked at first (the
 * sweep asks again). An event for an order that is not ours still reaches the list, with why.
 */

type EventRow = { id: string; type: string; outcome: string; reason: string | null };

async function unmatchedOnReview(app: GatewayApp) {
  const { events, counts } = await app.t.get(GatewayEventsReview).forOperators(500);
  return { events: events.filter((e) => e.outcome === 'unmatched'), count: counts.unmatched };
}

const eventsOfOrder = (app: GatewayApp, orderId: string) =>
  app.t.db.query<EventRow[]>(
    `SELECT id, type, outcome, reason FROM gateway_events WHERE order_id = $1 ORDER BY received_at, id`,
    [orderId],
  );

async function settledEventsOf(app: GatewayApp, orderId: string): Promise<EventRow[]> {
  await waitFor('the order’s three payment events', async () => {
    const rows = await eventsOfOrder(app, orderId);
    return ['payment.authorized', 'payment.captured', 'order.paid'].every((t) =>
      rows.some((r) => r.type === t),
    );
  });
  return eventsOfOrder(app, orderId);
}

describe('gateway events about our own payments: Reserve Pay', () => {
  let app: GatewayApp;
  let ws: SeededWorkspace;
  let mandateId: string;

  beforeAll(async () => {
    app = await startGatewayApp({ overrides: { webhookDispatchIntervalMs: 100 } });
    ws = await seedWorkspace(app.t);
    mandateId = await createMandate(
      app.t,
      { workspaceId: ws.workspaceId, agentId: ws.buyer.id },
      { perPaymentCapPaise: 500_000 },
    );
  });
  afterAll(() => app?.close());
  afterEach(() => app.gw.sim.control.webhooks({ hold: false, flush: true }));

  async function payQuote(amountPaise: number): Promise<{ intentId: string; orderId: string }> {
    const quoteId = await createQuote(app.t, ws, amountPaise);
    const res = await request(app.t.url)
      .post(`/v1/pay/quotes/${quoteId}/pay`)
      .set({ ...bearer(ws.buyer.credential), 'Idempotency-Key': randomUUID() })
      .send({ mandate_id: mandateId });
    expect(res.status).toBe(200);
    expect(res.body.intent.status).toBe('settled');
    const intentId = res.body.intent.id as string;
    const [order] = await app.gw.client.findOrdersByReceipt(intentId);
    return { intentId, orderId: order.id };
  }

  it('a ₹450 Reserve Pay debit settles and leaves none of its events unmatched', async () => {
    const { intentId, orderId } = await payQuote(45_000);
    const events = await settledEventsOf(app, orderId);
    expect(events.filter((e) => e.outcome === 'unmatched')).toEqual([]);
    expect(
      await app.t.db.query(`SELECT kind, subject_id FROM gateway_orders WHERE id = $1`, [orderId]),
    ).toEqual([{ kind: 'intent', subject_id: intentId }]);
    expect(await unmatchedOnReview(app)).toEqual({ events: [], count: 0 });
  });

  it('after a crash between the gateway’s answer and our record, the events match by receipt', async () => {
    // The events wait at the gateway while the app "dies" before recording the debit's order.
    app.gw.sim.control.webhooks({ hold: true });
    const { intentId, orderId } = await payQuote(12_300);
    await app.t.db.query(`DELETE FROM gateway_orders WHERE id = $1`, [orderId]);
    app.gw.sim.control.webhooks({ hold: false, flush: true });
    const events = await settledEventsOf(app, orderId);
    expect(events.filter((e) => e.outcome === 'unmatched')).toEqual([]);
    expect(
      await app.t.db.query(`SELECT kind, subject_id FROM gateway_orders WHERE id = $1`, [orderId]),
    ).toEqual([{ kind: 'intent', subject_id: intentId }]);
    expect(await unmatchedOnReview(app)).toEqual({ events: [], count: 0 });
  });

  it('events the gateway could not be asked about are matched by the sweep', async () => {
    const { intentId, orderId } = await payQuote(7_700);
    await settledEventsOf(app, orderId);
    // As if the order had never been recorded and the look-up had got no answer.
    await app.t.db.query(`DELETE FROM gateway_orders WHERE id = $1`, [orderId]);
    await app.t.db.query(
      `UPDATE gateway_events SET outcome = 'unmatched', subject_id = NULL, reason = NULL WHERE order_id = $1`,
      [orderId],
    );
    expect((await unmatchedOnReview(app)).count).toBe(3);
    await app.t.get(GatewayWebhooksService).reconcileUnmatched();
    const events = await eventsOfOrder(app, orderId);
    expect(events.filter((e) => e.outcome === 'unmatched')).toEqual([]);
    expect(
      await app.t.db.query(`SELECT kind, subject_id FROM gateway_orders WHERE id = $1`, [orderId]),
    ).toEqual([{ kind: 'intent', subject_id: intentId }]);
    expect(await unmatchedOnReview(app)).toEqual({ events: [], count: 0 });
  });

  it('a foreign order’s events still reach the review list, with why', async () => {
    // An order someone else opened on the same gateway account, paid there.
    const foreign = await app.gw.client.createOrder({
      amount: 99_900,
      currency: 'INR',
      receipt: 'counter-sale-17',
    });
    await app.gw.sim.control.pay(foreign.id);
    const events = await settledEventsOf(app, foreign.id);
    expect(events.map((e) => [e.outcome, e.reason])).toEqual(
      events.map(() => ['unmatched', FOREIGN_REASONS.notOurs]),
    );
    const review = await unmatchedOnReview(app);
    expect(review.count).toBe(events.length);
    expect(review.events.map((e) => e.orderId)).toEqual(events.map(() => foreign.id));
    // The sweep does not ask the gateway again about an order it said is not ours.
    await app.t.get(GatewayWebhooksService).reconcileUnmatched();
    expect((await unmatchedOnReview(app)).count).toBe(events.length);
    expect(
      await app.t.db.query(`SELECT 1 FROM gateway_orders WHERE id = $1`, [foreign.id]),
    ).toEqual([]);
  });
});

describe('gateway events about our own payments: an AutoPay debit', () => {
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

  it('registration and debit settle and leave no event unmatched', async () => {
    const before = (await unmatchedOnReview(app)).events.map((e) => e.id);
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
      .send({ amount_paise: 45_000, description: 'December plan' });
    expect(charge.status).toBe(201);
    const [pending] = await app.t.db.query<{ approval_id: string }[]>(
      `SELECT approval_id FROM recurring_charges WHERE id = $1`,
      [charge.body.id],
    );
    await app.t
      .get(ApprovalsService)
      .decide(ws.workspaceId, pending.approval_id, ws.personId, 'approved');
    setNow(new Date(new Date(charge.body.debit_at).getTime() + 1000));
    expect(await app.t.get(RecurringChargesService).attempt(charge.body.id)).toBe('debiting');
    const [row] = await app.t.db.query<{ status: string; intent_id: string }[]>(
      `SELECT status, intent_id FROM recurring_charges WHERE id = $1`,
      [charge.body.id],
    );
    expect(row.status).toBe('settled');
    const [order] = await app.gw.client.findOrdersByReceipt(row.intent_id);
    const events = await settledEventsOf(app, order.id);
    await app.gw.sim.control.webhooksIdle();
    expect(events.filter((e) => e.outcome === 'unmatched')).toEqual([]);
    // Nothing of the mandate's registration or of the debit is left for a person either (the
    // database is the file's: the first describe's foreign order is on the list already).
    const review = await unmatchedOnReview(app);
    expect(review.events.filter((e) => !before.includes(e.id))).toEqual([]);
    expect(review.count).toBe(before.length);
    // The registration's events (payment, token.confirmed) were received and matched too.
    const [registration] = await app.t.db.query<{ registration_order_id: string }[]>(
      `SELECT registration_order_id FROM gateway_mandate_tokens WHERE mandate_id = $1`,
      [mandateId],
    );
    const ofRegistration = await eventsOfOrder(app, registration.registration_order_id);
    expect(ofRegistration.length).toBeGreaterThan(0);
    expect(ofRegistration.filter((e) => e.outcome === 'unmatched')).toEqual([]);
  });
});
