import { randomUUID } from 'node:crypto';

import request from 'supertest';

import type {
  GatewayPayment,
  GatewayWebhookEvent,
} from '../../src/rails/gateway/gateway-client.types';
import { webhookSignature } from '../../src/rails/gateway/gateway-signatures';
import { bearer } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { TEST_GATEWAY_KEYS } from '../support/gateway';
import { createQuote, GatewayApp, startGatewayApp, waitFor } from '../support/gateway-app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * Inbound gateway webhooks, POST /v1/webhooks/gateway (spec §5 rule 7): the signature is checked
 * over the raw body before anything is recorded; the event id is recorded in the transaction of
 * its effect and a repeat is ignored (fifty concurrent copies apply once); a state never moves
 * backwards; an event for an unknown order is stored for reconciliation and answered 200; and a
 * hosted payment the browser never reported settles from the webhook alone.
 */
describe('gateway webhooks', () => {
  let app: GatewayApp;
  let ws: SeededWorkspace;
  let mandateId: string;

  beforeAll(async () => {
    app = await startGatewayApp({ overrides: { webhookDispatchIntervalMs: 100 } });
    ws = await seedWorkspace(app.t);
    mandateId = await createMandate(
      app.t,
      { workspaceId: ws.workspaceId, agentId: ws.buyer.id },
      { rail: 'upi_otm' },
    );
  });
  afterAll(() => app?.close());
  afterEach(() => app.gw.sim.control.webhooks({ drop: false, duplicate: 0, reverse_order: false }));

  const one = async <T>(sql: string, params: unknown[]): Promise<T> =>
    (await app.t.db.query<T[]>(sql, params))[0];
  const count = async (sql: string, params: unknown[] = []) =>
    (await one<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params)).n;

  function eventOf(type: GatewayWebhookEvent['event'], payment: GatewayPayment): string {
    return JSON.stringify({
      entity: 'event',
      account_id: 'acc_SimAccount0001',
      event: type,
      contains: ['payment'],
      payload: { payment: { entity: payment } },
      created_at: Math.floor(Date.now() / 1000),
    });
  }

  const send = (
    raw: string,
    eventId: string,
    signature = webhookSignature(raw, TEST_GATEWAY_KEYS.webhookSecret),
  ) =>
    request(app.t.url)
      .post('/v1/webhooks/gateway')
      .set({
        'Content-Type': 'application/json',
        'X-Gateway-Signature': signature,
        'X-Gateway-Event-Id': eventId,
      })
      .send(raw);

  async function settledDebit(amountPaise: number) {
    const quoteId = await createQuote(app.t, ws, amountPaise);
    const res = await request(app.t.url)
      .post(`/v1/pay/quotes/${quoteId}/pay`)
      .set(bearer(ws.buyer.credential))
      .send({ mandate_id: mandateId });
    expect(res.body.intent.status).toBe('settled');
    const intentId = res.body.intent.id as string;
    const [order] = await app.gw.client.findOrdersByReceipt(intentId);
    const [payment] = await app.gw.client.listOrderPayments(order.id);
    return { intentId, payment };
  }

  /** A hosted checkout on the gateway rail, with its gateway order. */
  async function hostedCheckout(amountPaise: number) {
    const quoteId = await createQuote(app.t, ws, amountPaise);
    const started = await request(app.t.url)
      .post(`/v1/public/pay/quotes/${quoteId}/checkout`)
      .send();
    expect(started.status).toBe(200);
    expect(started.body.order_id).toMatch(/^order_/);
    return {
      quoteId,
      checkoutId: started.body.id as string,
      orderId: started.body.order_id as string,
    };
  }

  it('refuses a bad or missing signature and records nothing', async () => {
    const { payment } = await settledDebit(11_000);
    await app.gw.sim.control.webhooksIdle();
    const before = await count('gateway_events');
    const raw = eventOf('payment.captured', payment);
    for (const signature of ['', 'ab'.repeat(32), webhookSignature(raw, 'another-secret')]) {
      const res = await send(raw, `evt_forged${randomUUID().slice(0, 8)}`, signature);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('invalid_signature');
    }
    // A body changed after signing fails too (the MAC is over the raw bytes).
    const signed = webhookSignature(raw, TEST_GATEWAY_KEYS.webhookSecret);
    const tampered = raw.replace(`"amount":${payment.amount}`, `"amount":${payment.amount + 1}`);
    expect((await send(tampered, 'evt_tampered000001', signed)).status).toBe(401);
    const missing = await request(app.t.url)
      .post('/v1/webhooks/gateway')
      .set({ 'Content-Type': 'application/json', 'X-Gateway-Event-Id': 'evt_nosig00000001' })
      .send(raw);
    expect(missing.status).toBe(401);
    expect(await count('gateway_events')).toBe(before);
  });

  it('applies an event once: a retried copy is answered duplicate and changes nothing', async () => {
    const { quoteId, checkoutId, orderId } = await hostedCheckout(12_000);
    app.gw.sim.control.webhooks({ drop: true });
    await app.gw.sim.control.pay(orderId);
    const [payment] = await app.gw.client.listOrderPayments(orderId);
    const raw = eventOf('payment.captured', payment);
    const first = await send(raw, 'evt_dup00000000001');
    expect(first.body).toMatchObject({ received: true, outcome: 'applied' });
    const again = await send(raw, 'evt_dup00000000001');
    expect(again.status).toBe(200);
    expect(again.body.outcome).toBe('duplicate');
    const checkout = await request(app.t.url).get(
      `/v1/public/pay/quotes/${quoteId}/checkout/${checkoutId}`,
    );
    expect(checkout.body).toMatchObject({ status: 'paid', payment_reference: payment.id });
    expect(await count(`payment_intents WHERE source_id = $1`, [checkoutId])).toBe(1);
  });

  it('fifty concurrent copies of one event are applied once', async () => {
    const { checkoutId, orderId } = await hostedCheckout(13_000);
    app.gw.sim.control.webhooks({ drop: true });
    await app.gw.sim.control.pay(orderId);
    const [payment] = await app.gw.client.listOrderPayments(orderId);
    const raw = eventOf('payment.captured', payment);
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => send(raw, 'evt_fifty000000001')),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    const outcomes = answers.map((a) => a.body.outcome as string).sort();
    expect(outcomes.filter((o) => o === 'applied')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'duplicate')).toHaveLength(49);
    const [intent] = await app.t.db.query<{ id: string; status: string; receipt_id: string }[]>(
      'SELECT id, status, receipt_id FROM payment_intents WHERE source_id = $1',
      [checkoutId],
    );
    expect(intent.status).toBe('settled');
    expect(await count(`payment_intents WHERE source_id = $1`, [checkoutId])).toBe(1);
    expect(await count('chain_entries WHERE chain_id = $1', [intent.receipt_id])).toBe(1);
    expect(
      await count(`outbox_events WHERE subject_id = $1 AND type = 'intent.settled'`, [intent.id]),
    ).toBe(1);
    expect(await count(`gateway_events WHERE id = 'evt_fifty000000001'`)).toBe(1);
  });

  it('the simulator’s own duplicates and reversed order change nothing twice', async () => {
    await app.gw.sim.control.webhooksIdle();
    const seen = app.gw.sim.control.webhookLog().length;
    app.gw.sim.control.webhooks({ duplicate: 3, reverse_order: true });
    const { intentId, payment } = await settledDebit(14_000);
    await app.gw.sim.control.webhooksIdle();
    expect(
      await count(`outbox_events WHERE subject_id = $1 AND type = 'intent.settled'`, [intentId]),
    ).toBe(1);
    // Every delivery was answered 2xx: no retry loop.
    const log = app.gw.sim.control
      .webhookLog()
      .slice(seen)
      .filter((l) => l.event === 'payment.captured' || l.event === 'order.paid');
    expect(log.length).toBeGreaterThan(0);
    expect(log.filter((l) => l.outcome !== 'delivered')).toEqual([]);
    expect(await count(`gateway_events WHERE payment_id = $1`, [payment.id])).toBeGreaterThan(0);
  });

  it('never moves a state backwards: payment.failed after payment.captured changes nothing', async () => {
    const { intentId, payment } = await settledDebit(15_000);
    const failed: GatewayPayment = {
      ...payment,
      status: 'failed',
      captured: false,
      error_code: 'BAD_REQUEST_ERROR',
      error_description: 'late failure',
    };
    const res = await send(eventOf('payment.failed', failed), 'evt_backwards00001');
    expect(res.body.outcome).toBe('no_change');
    expect(
      await one('SELECT status, decline_code FROM payment_intents WHERE id = $1', [intentId]),
    ).toEqual({ status: 'settled', decline_code: null });
    expect(await count('rail_transfers WHERE intent_id = $1', [intentId])).toBe(1);
  });

  it('stores an event for an unknown order for reconciliation and answers 200', async () => {
    const { payment } = await settledDebit(16_000);
    const stranger = { ...payment, id: 'pay_Unknown0000001', order_id: 'order_Unknown000001' };
    const res = await send(eventOf('payment.captured', stranger), 'evt_unknown0000001');
    expect(res.status).toBe(200);
    expect(res.body.outcome).toBe('unmatched');
    expect(
      await one(
        `SELECT type, outcome, order_id FROM gateway_events WHERE id = 'evt_unknown0000001'`,
        [],
      ),
    ).toEqual({ type: 'payment.captured', outcome: 'unmatched', order_id: 'order_Unknown000001' });
    // A retry is a duplicate, not an error loop.
    expect(
      (await send(eventOf('payment.captured', stranger), 'evt_unknown0000001')).body.outcome,
    ).toBe('duplicate');
  });

  it('settles a hosted payment from the webhook alone when the person closed the tab', async () => {
    const { quoteId, checkoutId, orderId } = await hostedCheckout(17_500);
    // The person pays in the widget; the page never reports it (no complete call).
    await app.gw.sim.control.pay(orderId);
    await waitFor('the webhook to settle the checkout', async () => {
      const row = await one<{ status: string }>(
        'SELECT status FROM hosted_checkouts WHERE id = $1',
        [checkoutId],
      );
      return row.status === 'paid';
    });
    const view = await request(app.t.url).get(`/v1/public/pay/quotes/${quoteId}`);
    expect(view.body.quote.status).toBe('paid');
    expect(view.body.checkout).toMatchObject({
      status: 'paid',
      receipt_id: expect.stringMatching(/^rcp_/) as string,
      payment_reference: expect.stringMatching(/^pay_/) as string,
    });
    const intentId = view.body.checkout.intent_id as string;
    expect(
      await count(`outbox_events WHERE subject_id = $1 AND type = 'intent.settled'`, [intentId]),
    ).toBe(1);
  });
});
