import request from 'supertest';

import { ChainService } from '../../src/chains/chain.service';
import { CaptureRefunds } from '../../src/gateway/capture-refunds';
import { OperatorsService } from '../../src/ops/operators.service';
import { PublicPayService } from '../../src/public-pay/public-pay.service';
import { webhookSignature } from '../../src/rails/gateway/gateway-signatures';
import { signIn } from '../factories/app-session.factory';
import { bearer } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { TEST_GATEWAY_KEYS } from '../support/gateway';
import { createQuote, GatewayApp, startGatewayApp, waitFor } from '../support/gateway-app';
import { scrape } from '../support/prometheus';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * Every payment the gateway captures ends settled on exactly one intent or refunded in full
 * (docs/gateway.md "Going live on the gateway", docs/architecture.md "Every capture settles or is
 * refunded"), against the simulator over HTTP with its webhooks on: the buyer's daily cap met by
 * six payments made at once, a quote canceled, expired, waiting for a person's decision or paid
 * another way before the person paid, a mandate debit that failed and was captured late, and a
 * capture nobody reported (the ended-checkout pass). Each refund is asked once however often the
 * sweep or an event retries, is recorded on a signed chain, told to the seller by events and to
 * the person in words, and is listed for operators with its age until it is processed.
 */
describe('every capture settles or is refunded (gateway rail)', () => {
  let app: GatewayApp;
  const SYSTEM = { type: 'system' as const, id: 'test' };

  beforeAll(async () => {
    app = await startGatewayApp();
  });
  afterAll(() => app?.close());
  afterEach(() => app.gw.sim.control.refundMode('processed'));

  const one = async <T>(sql: string, params: unknown[]): Promise<T> =>
    (await app.t.db.query<T[]>(sql, params))[0];
  const count = async (sql: string, params: unknown[]) =>
    (await one<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params)).n;
  const captures = () => app.t.get(CaptureRefunds);
  const base = (quoteId: string) => `/v1/public/pay/quotes/${quoteId}`;

  async function start(quoteId: string) {
    const res = await request(app.t.url)
      .post(`${base(quoteId)}/checkout`)
      .send();
    expect(res.status).toBe(200);
    return res.body as { id: string; order_id: string };
  }
  const complete = (quoteId: string, checkoutId: string, fields: object) =>
    request(app.t.url)
      .post(`${base(quoteId)}/checkout/${checkoutId}/complete`)
      .send({ ...fields });
  const getCheckout = (quoteId: string, checkoutId: string) =>
    request(app.t.url).get(`${base(quoteId)}/checkout/${checkoutId}`);
  const statusPage = (quoteId: string, checkoutId: string) =>
    request(app.t.url).get(`/app/pay/${quoteId}/status?checkout=${checkoutId}`);
  const gatewayPayment = (id: string) => app.gw.client.getPayment(id);

  /** The seller cancels its quote. */
  async function cancelQuote(ws: SeededWorkspace, quoteId: string) {
    const res = await request(app.t.url)
      .post(`/v1/pay/quotes/${quoteId}/cancel`)
      .set(bearer(ws.seller.credential))
      .set('Idempotency-Key', `cancel-${quoteId}`)
      .send();
    expect(res.status).toBe(200);
  }

  /** The gateway's own view: the capture refunded in full, by exactly one refund. */
  async function expectRefundedOnceAtGateway(paymentId: string, amount: number) {
    await waitFor('the refund to be processed', async () => {
      const row = await captures().findByPayment(paymentId);
      return row?.status === 'refunded';
    });
    const payment = await gatewayPayment(paymentId);
    expect(payment).toMatchObject({ amount, amount_refunded: amount, refund_status: 'full' });
    const refunds = await app.gw.client.listPaymentRefunds(paymentId);
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ amount, status: 'processed' });
  }

  /** The refund's signed chain: held, then refunded, and it verifies. */
  async function expectChain(paymentId: string) {
    const row = await captures().findByPayment(paymentId);
    const chains = app.t.get(ChainService);
    const entries = await chains.entries(row!.id);
    expect(entries.map((e) => e.payload.type)).toEqual(['capture.refund_due', 'capture.refunded']);
    expect(entries[0].payload).toMatchObject({ payment_reference: paymentId });
    expect((await chains.verify(row!.id)).valid).toBe(true);
  }

  it('six ₹9,000 payments made at once against a ₹50,000 daily cap: five settle, one is refunded in full, once', async () => {
    const ws = await seedWorkspace(app.t);
    const quotes = await Promise.all(
      Array.from({ length: 6 }, () => createQuote(app.t, ws, 900_000)),
    );
    // Each start passes the cap preview: nothing is spent yet.
    const started = [];
    for (const q of quotes) {
      started.push({ quoteId: q, ...(await start(q)) });
    }
    // The person pays all six at the gateway; webhooks race the completions.
    const paid = await Promise.all(started.map((s) => app.gw.sim.control.pay(s.order_id)));
    const answers = [];
    for (const [i, s] of started.entries()) {
      answers.push((await complete(s.quoteId, s.id, paid[i])).body);
    }
    await app.gw.sim.control.webhooksIdle();

    expect(answers.filter((a) => a.status === 'paid')).toHaveLength(5);
    const failed = answers.filter((a) => a.status === 'failed');
    expect(failed).toHaveLength(1);
    const refused = failed[0];
    const paymentId = paid[answers.indexOf(refused)].gateway_payment_id;
    expect(refused).toMatchObject({ failure_code: 'daily_cap_exceeded' });
    expect(refused.refunds).toHaveLength(1);
    expect(refused.refunds[0]).toMatchObject({
      amount_paise: 900_000,
      payment_reference: paymentId,
      reason_code: 'daily_cap_exceeded',
    });
    expect(
      await count(
        `payment_intents WHERE buyer_agent_id = $1 AND status = 'settled' AND amount_paise = 900000`,
        [ws.buyer.id],
      ),
    ).toBe(5);

    await expectRefundedOnceAtGateway(paymentId, 900_000);
    // The sweep and the gateway's events retried: still one refund.
    for (let i = 0; i < 3; i++) {
      await captures().run();
    }
    for (const e of app.gw.sim.control
      .webhookEvents()
      .filter((e) => JSON.stringify(e).includes(paymentId))) {
      app.gw.sim.control.redeliver(e.id);
    }
    await app.gw.sim.control.webhooksIdle();
    expect(await app.gw.client.listPaymentRefunds(paymentId)).toHaveLength(1);
    expect(await count(`gateway_capture_refunds WHERE payment_id = $1`, [paymentId])).toBe(1);
    await expectChain(paymentId);

    // The person is told in words; the seller by events; the checkout's history has it.
    const after = await getCheckout(refused.quote_id as string, refused.id as string);
    expect(after.body.refunds[0]).toMatchObject({ status: 'refunded' });
    expect(after.body.refunds[0].message).toContain('₹9,000.00 was refunded to you in full');
    const page = await statusPage(refused.quote_id as string, refused.id as string);
    expect(page.status).toBe(200);
    expect(page.text).toContain('You were not charged');
    expect(page.text).toContain('₹9,000.00 was refunded to you in full');
    expect(
      (
        await app.t.db.query<{ type: string }[]>(
          `SELECT type FROM outbox_events WHERE workspace_id = $1 AND type LIKE 'capture.%' ORDER BY created_at`,
          [ws.workspaceId],
        )
      ).map((r) => r.type),
    ).toEqual(['capture.refund_started', 'capture.refunded']);
    expect(
      await count(`audit_events WHERE subject_id = $1 AND action LIKE 'capture.%'`, [refused.id]),
    ).toBe(2);
    // The quote stays open (payable again another day); nothing of it settled.
    expect(await one('SELECT status FROM quotes WHERE id = $1', [refused.quote_id])).toEqual({
      status: 'open',
    });
  });

  it('a quote the seller canceled before the person paid: refunded; shown to operators with its age until the gateway processes it', async () => {
    const ws = await seedWorkspace(app.t);
    const quoteId = await createQuote(app.t, ws, 250_000);
    const checkout = await start(quoteId);
    await cancelQuote(ws, quoteId);
    app.gw.sim.control.refundMode('pending');
    const fields = await app.gw.sim.control.pay(checkout.order_id);
    const done = await complete(quoteId, checkout.id, fields);
    expect(done.status).toBe(200);
    expect(done.body.refunds).toEqual([
      expect.objectContaining({ status: 'refunding', reason_code: 'quote_canceled' }),
    ]);
    expect(done.body.refunds[0].message).toBe(
      `You were not charged: ₹2,500.00 is being refunded, reference ${fields.gateway_payment_id}. The seller canceled this payment request before your payment arrived.`,
    );
    await waitFor('the refund to be asked', async () => {
      const row = await captures().findByPayment(fields.gateway_payment_id);
      return row?.status === 'requested';
    });
    const page = await statusPage(quoteId, checkout.id);
    expect(page.text).toContain('is being refunded');
    expect(page.text).toContain(fields.gateway_payment_id);

    // Operators: the metric and the page list it, with its age.
    const metrics = await scrape(app.t);
    expect(metrics.value('svc_gateway_captures_awaiting_refund')).toBeGreaterThanOrEqual(1);
    expect(metrics.value('svc_gateway_capture_refund_oldest_age_seconds')).toBeGreaterThanOrEqual(
      0,
    );
    const issued = await app.t
      .get(OperatorsService)
      .ensureOperator(
        { email: 'refunds@ops.test', name: 'Refunds', workspaceName: 'Operators' },
        SYSTEM,
      );
    const operator = await signIn(app.t, issued.email, issued.password);
    const ops = await request(app.t.url).get('/app/ops/settlements').set('Cookie', operator.cookie);
    expect(ops.status).toBe(200);
    expect(ops.text).toContain('Captures being refunded');
    expect(ops.text).toContain(fields.gateway_payment_id);
    expect(ops.text).toMatch(/data-status="requested"/);

    // The gateway processes it: its webhook ends the refund (forward only), no second ask.
    app.gw.sim.control.processRefunds({ status: 'processed' });
    await expectRefundedOnceAtGateway(fields.gateway_payment_id, 250_000);
    await expectChain(fields.gateway_payment_id);
    const after = await request(app.t.url)
      .get('/app/ops/settlements')
      .set('Cookie', operator.cookie);
    expect(after.text).toContain('Recently refunded captures');
  });

  it('a refund the gateway fails is asked again, with a new request, until processed', async () => {
    const ws = await seedWorkspace(app.t);
    const quoteId = await createQuote(app.t, ws, 120_000);
    const checkout = await start(quoteId);
    await cancelQuote(ws, quoteId);
    app.gw.sim.control.refundMode('fail');
    const fields = await app.gw.sim.control.pay(checkout.order_id);
    await complete(quoteId, checkout.id, fields).expect(200);
    await waitFor('the failed refund to be recorded', async () => {
      const row = await captures().findByPayment(fields.gateway_payment_id);
      return row !== null && row.asks >= 1 && row.status === 'due';
    });
    await app.gw.sim.control.webhooksIdle();
    // The failed refund's own events again, late: the row never moves back to `requested`.
    for (const e of app.gw.sim.control
      .webhookEvents()
      .filter(
        (e) =>
          e.event.startsWith('refund.') && JSON.stringify(e).includes(fields.gateway_payment_id),
      )) {
      app.gw.sim.control.redeliver(e.id);
    }
    await app.gw.sim.control.webhooksIdle();
    expect(await captures().findByPayment(fields.gateway_payment_id)).toMatchObject({
      status: 'due',
      asks: 1,
    });
    app.gw.sim.control.refundMode('processed');
    await app.t.db.query(
      `UPDATE gateway_capture_refunds SET next_attempt_at = now() - interval '1 second' WHERE payment_id = $1`,
      [fields.gateway_payment_id],
    );
    await captures().run();
    await waitFor('the refund to be processed', async () => {
      const row = await captures().findByPayment(fields.gateway_payment_id);
      return row?.status === 'refunded';
    });
    const payment = await gatewayPayment(fields.gateway_payment_id);
    expect(payment).toMatchObject({ amount_refunded: 120_000, refund_status: 'full' });
    const refunds = await app.gw.client.listPaymentRefunds(fields.gateway_payment_id);
    expect(refunds.map((r) => r.status).sort()).toEqual(['failed', 'processed']);
  });

  it('a quote that expired before the person paid: refunded (quote_expired); one paid in time settles though its webhook comes late', async () => {
    const ws = await seedWorkspace(app.t);
    const late = await createQuote(app.t, ws, 150_000);
    const lateCheckout = await start(late);
    const onTime = await createQuote(app.t, ws, 160_000);
    const onTimeCheckout = await start(onTime);
    app.gw.sim.control.webhooks({ hold: true });
    const onTimeFields = await app.gw.sim.control.pay(onTimeCheckout.order_id);
    const sixteenMinutes = 16 * 60_000;
    try {
      app.t.clock.advance(sixteenMinutes);
      app.gw.sim.control.clock.advance(sixteenMinutes);
      const lateFields = await app.gw.sim.control.pay(lateCheckout.order_id);
      app.gw.sim.control.webhooks({ hold: false, flush: true });
      await app.gw.sim.control.webhooksIdle();
      const row = await captures().findByPayment(lateFields.gateway_payment_id);
      expect(row).toMatchObject({ reason_code: 'quote_expired', checkout_id: lateCheckout.id });
      await expectRefundedOnceAtGateway(lateFields.gateway_payment_id, 150_000);
      // Paid before the quote expired: settled, not refunded.
      expect(await captures().findByPayment(onTimeFields.gateway_payment_id)).toBeNull();
      expect(await one('SELECT status FROM quotes WHERE id = $1', [onTime])).toEqual({
        status: 'paid',
      });
    } finally {
      app.t.clock.advance(-sixteenMinutes);
      app.gw.sim.control.clock.advance(-sixteenMinutes);
      app.gw.sim.control.webhooks({ hold: false, flush: true });
    }
  });

  it('a quote waiting for a person’s decision on its agent’s payment: the page’s capture is refunded', async () => {
    const ws = await seedWorkspace(app.t);
    const quoteId = await createQuote(app.t, ws, 350_000);
    const checkout = await start(quoteId);
    const mandateId = await createMandate(app.t, {
      workspaceId: ws.workspaceId,
      agentId: ws.buyer.id,
    });
    const pay = await request(app.t.url)
      .post(`/v1/pay/quotes/${quoteId}/pay`)
      .set(bearer(ws.buyer.credential))
      .set('Idempotency-Key', `pay-${quoteId}`)
      .send({ mandate_id: mandateId });
    expect(pay.body.intent.status).toBe('requires_approval');
    const fields = await app.gw.sim.control.pay(checkout.order_id);
    const done = await complete(quoteId, checkout.id, fields);
    expect(done.status).toBe(200);
    expect(done.body.refunds[0]).toMatchObject({ reason_code: 'quote_pending_approval' });
    await expectRefundedOnceAtGateway(fields.gateway_payment_id, 350_000);
    expect(await count(`payment_intents WHERE source_id = $1`, [checkout.id])).toBe(0);
  });

  it('a mandate debit that failed and was captured late: refunded, and the intent stays failed', async () => {
    const ws = await seedWorkspace(app.t);
    const quoteId = await createQuote(app.t, ws, 90_000);
    const mandateId = await createMandate(
      app.t,
      { workspaceId: ws.workspaceId, agentId: ws.buyer.id },
      { rail: 'upi_otm' },
    );
    app.gw.sim.control.next('fail');
    const pay = await request(app.t.url)
      .post(`/v1/pay/quotes/${quoteId}/pay`)
      .set(bearer(ws.buyer.credential))
      .set('Idempotency-Key', `pay-${quoteId}`)
      .send({ mandate_id: mandateId });
    const intentId = pay.body.intent.id as string;
    await waitFor('the debit to fail', async () => {
      const row = await one<{ status: string }>(
        'SELECT status FROM payment_intents WHERE id = $1',
        [intentId],
      );
      return row.status === 'failed';
    });
    const order = await one<{ id: string }>(
      `SELECT id FROM gateway_orders WHERE kind = 'intent' AND subject_id = $1`,
      [intentId],
    );
    // The bank's late success: a capture on the intent's order after we failed it.
    const late = await app.gw.sim.control.pay(order.id);
    await app.gw.sim.control.webhooksIdle();
    const row = await captures().findByPayment(late.gateway_payment_id);
    expect(row).toMatchObject({ intent_id: intentId, checkout_id: null });
    await expectRefundedOnceAtGateway(late.gateway_payment_id, 90_000);
    expect(await one('SELECT status FROM payment_intents WHERE id = $1', [intentId])).toEqual({
      status: 'failed',
    });
    expect(
      await count(`audit_events WHERE subject_id = $1 AND action LIKE 'capture.%'`, [intentId]),
    ).toBe(2);
  });

  it('a capture whose webhook and page never reached us is found by the ended-checkout pass and settled once', async () => {
    const ws = await seedWorkspace(app.t);
    const quoteId = await createQuote(app.t, ws, 110_000);
    const checkout = await start(quoteId);
    app.gw.sim.control.webhooks({ drop: true });
    try {
      await app.gw.sim.control.pay(checkout.order_id);
    } finally {
      app.gw.sim.control.webhooks({ drop: false });
    }
    // Nobody reported it; the checkout ends (its 30 minutes pass) with the money captured.
    const thirtyOneMinutes = 31 * 60_000;
    app.t.clock.advance(thirtyOneMinutes);
    try {
      const pay = app.t.get(PublicPayService);
      expect(await pay.checkEndedCheckouts(100)).toBeGreaterThanOrEqual(1);
      await pay.checkEndedCheckouts(100);
    } finally {
      app.t.clock.advance(-thirtyOneMinutes);
    }
    expect(await one('SELECT status FROM quotes WHERE id = $1', [quoteId])).toEqual({
      status: 'paid',
    });
    expect(
      await count(`payment_intents WHERE source_id = $1 AND status = 'settled'`, [checkout.id]),
    ).toBe(1);
    expect(await count(`gateway_capture_refunds WHERE checkout_id = $1`, [checkout.id])).toBe(0);
  });

  it('a second capture event for a refunded payment, with a new event id, asks nothing more', async () => {
    const ws = await seedWorkspace(app.t);
    const quoteId = await createQuote(app.t, ws, 130_000);
    const checkout = await start(quoteId);
    await cancelQuote(ws, quoteId);
    const fields = await app.gw.sim.control.pay(checkout.order_id);
    await app.gw.sim.control.webhooksIdle();
    await expectRefundedOnceAtGateway(fields.gateway_payment_id, 130_000);
    const payment = await gatewayPayment(fields.gateway_payment_id);
    const raw = JSON.stringify({
      entity: 'event',
      event: 'payment.captured',
      contains: ['payment'],
      payload: { payment: { entity: { ...payment, status: 'captured' } } },
      created_at: Math.floor(Date.now() / 1000),
    });
    const res = await request(app.t.url)
      .post('/v1/webhooks/gateway')
      .set('Content-Type', 'application/json')
      .set('X-Gateway-Signature', webhookSignature(raw, TEST_GATEWAY_KEYS.webhookSecret))
      .set('X-Gateway-Event-Id', `evt_again_${fields.gateway_payment_id}`)
      .send(raw);
    expect(res.status).toBe(200);
    expect(res.body.outcome).toBe('no_change');
    await captures().run();
    expect(await app.gw.client.listPaymentRefunds(fields.gateway_payment_id)).toHaveLength(1);
  });
});
