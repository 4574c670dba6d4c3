import { randomUUID } from 'node:crypto';

import request from 'supertest';

import { ApprovalsService } from '../../src/approvals/approvals.service';
import { RailReconciler } from '../../src/payments/rail-reconciler';
import { bearer } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { createOffer } from '../factories/offer.factory';
import { insertToken } from '../factories/payment-fixtures';
import { createCheckoutSession } from '../factories/session.factory';
import { TEST_GATEWAY_KEYS } from '../support/gateway';
import { createQuote, GatewayApp, startGatewayApp, waitFor } from '../support/gateway-app';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * The gateway rail (RAIL=gateway, MODE=test) against the gateway simulator over real HTTP: a
 * buyer agent's payment under a mandate is a recurring debit on the mandate's gateway token
 * (registered on first use; in test mode the simulator's control API approves it), with the order
 * found again by receipt = intent id and Idempotency-Keys derived from the intent id; definite
 * failures decline with our codes; no answer leaves the intent processing for the reconciler; a
 * refund a person approves is a gateway refund whose status comes by webhook or by poll.
 */
describe('gateway rail: debits and refunds against the simulator', () => {
  let app: GatewayApp;
  let ws: SeededWorkspace;
  let mandateId: string;

  beforeAll(async () => {
    app = await startGatewayApp({
      overrides: { railReconcileAfterMs: 2500, webhookDispatchIntervalMs: 100 },
      timeoutMs: 1000,
    });
    ws = await seedWorkspace(app.t);
    mandateId = await createMandate(
      app.t,
      { workspaceId: ws.workspaceId, agentId: ws.buyer.id },
      { rail: 'upi_otm' },
    );
  });
  afterAll(() => app?.close());
  afterEach(() => {
    app.gw.sim.control.webhooks({ drop: false, hold: false, duplicate: 0 });
    app.gw.sim.control.refundMode('processed');
  });

  const db = () => app.t.db;
  const one = async <T>(sql: string, params: unknown[]): Promise<T> =>
    (await db().query<T[]>(sql, params))[0];
  const count = async (sql: string, params: unknown[]) =>
    (await one<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params)).n;

  const pay = (quoteId: string) =>
    request(app.t.url)
      .post(`/v1/pay/quotes/${quoteId}/pay`)
      .set({ ...bearer(ws.buyer.credential), 'Idempotency-Key': randomUUID() })
      .send({ mandate_id: mandateId });

  async function paymentsOfIntent(intentId: string) {
    const orders = await app.gw.client.findOrdersByReceipt(intentId);
    expect(orders).toHaveLength(1);
    return app.gw.client.listOrderPayments(orders[0].id);
  }

  it('says rail gateway and mode test in the public view, and the page shows TEST MODE', async () => {
    const quoteId = await createQuote(app.t, ws, 10_000);
    const view = await request(app.t.url).get(`/v1/public/pay/quotes/${quoteId}`);
    expect(view.body).toMatchObject({ rail: 'gateway', mode: 'test', payable: true });
    const page = await request(app.t.url).get(`/app/pay/${quoteId}`);
    expect(page.text).toContain('TEST MODE');
    expect(page.text).toContain(`${app.gw.sim.url}/v1/checkout.js`);
    for (const body of [JSON.stringify(view.body), page.text]) {
      expect(body).not.toContain(TEST_GATEWAY_KEYS.keySecret);
      expect(body).not.toContain(TEST_GATEWAY_KEYS.webhookSecret);
    }
  });

  it('debits the mandate’s gateway token: settled with the gateway payment as reference, one captured payment', async () => {
    const quoteId = await createQuote(app.t, ws, 25_000);
    const res = await pay(quoteId);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      quote: { status: 'paid' },
      intent: { status: 'settled', receipt_id: expect.stringMatching(/^rcp_/) as string },
    });
    const intentId = res.body.intent.id as string;
    const intent = await one<{ rail: string; rail_reference: string }>(
      'SELECT rail, rail_reference FROM payment_intents WHERE id = $1',
      [intentId],
    );
    expect(intent.rail).toBe('gateway');
    expect(intent.rail_reference).toMatch(/^pay_/);
    const payments = await paymentsOfIntent(intentId);
    expect(payments).toEqual([
      expect.objectContaining({
        id: intent.rail_reference,
        status: 'captured',
        amount: 25_000,
        token_id: expect.stringMatching(/^token_/) as string,
      }),
    ]);
    expect(
      await one('SELECT status FROM gateway_mandate_tokens WHERE mandate_id = $1', [mandateId]),
    ).toEqual({ status: 'confirmed' });
    expect(
      await one(
        `SELECT gateway_order_id, gateway_payment_id FROM rail_transfers WHERE intent_id = $1`,
        [intentId],
      ),
    ).toEqual({
      gateway_order_id: payments[0].order_id,
      gateway_payment_id: payments[0].id,
    });
    // The gateway's payment.captured / order.paid webhooks find it settled: no change, no second event.
    await app.gw.sim.control.webhooksIdle();
    expect(
      await count(`outbox_events WHERE subject_id = $1 AND type = 'intent.settled'`, [intentId]),
    ).toBe(1);
  });

  it('ACP complete on the gateway rail still answers completed with the receipt', async () => {
    await createOffer(app.t, ws.seller.id, { sku: 'chai-1kg', unitPaise: 45_000 });
    const session = await createCheckoutSession(app.t, ws);
    const token = await insertToken(app.t, ws, { sessionId: session.id, mandateId });
    const res = await request(app.t.url)
      .post(`/acp/checkout_sessions/${session.id}/complete`)
      .set(acpHeaders(ws.merchantKey, randomUUID()))
      .send({
        payment_data: {
          handler_id: 'svc_upi_mandate',
          instrument: { type: 'svc_mandate', credential: { type: 'svc_delegated_token', token } },
        },
      });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('completed');
    expect(res.body.metadata.svc_receipt_id).toMatch(/^rcp_/);
    const [row] = await db().query<{ intent_id: string }[]>(
      'SELECT intent_id FROM checkout_sessions WHERE id = $1',
      [session.id],
    );
    const payments = await paymentsOfIntent(row.intent_id);
    expect(payments).toEqual([expect.objectContaining({ status: 'captured', amount: 45_000 })]);
  });

  it('declines with our code when the bank refuses (…51 → insufficient_funds)', async () => {
    const quoteId = await createQuote(app.t, ws, 10_051);
    const res = await pay(quoteId);
    expect(res.body).toMatchObject({
      quote: { status: 'open' },
      intent: { status: 'failed', decline_code: 'insufficient_funds' },
    });
    const payments = await paymentsOfIntent(res.body.intent.id as string);
    expect(payments.map((p) => p.status)).toEqual(['failed']);
  });

  it('while the debit’s answer is late, the gateway’s payment.captured webhook settles it (once)', async () => {
    const quoteId = await createQuote(app.t, ws, 30_000);
    app.gw.sim.control.next('succeed', 2000); // captured at once, answered after our 1 s timeout
    const res = await pay(quoteId);
    // The request gave up on the gateway after 1 s; the webhook had settled it by then.
    expect(res.body).toMatchObject({ quote: { status: 'paid' }, intent: { status: 'settled' } });
    const intentId = res.body.intent.id as string;
    await app.gw.sim.control.webhooksIdle();
    expect(await count('rail_transfers WHERE intent_id = $1', [intentId])).toBe(1);
    expect(
      await count(`outbox_events WHERE subject_id = $1 AND type = 'intent.settled'`, [intentId]),
    ).toBe(1);
    expect(
      await count(`gateway_events WHERE payment_id = $1 AND outcome = 'applied'`, [
        (await paymentsOfIntent(intentId))[0].id,
      ]),
    ).toBe(1);
  });

  it('leaves the intent processing when the gateway does not answer in time; with webhooks lost the reconciler settles it once', async () => {
    app.gw.sim.control.webhooks({ drop: true });
    const quoteId = await createQuote(app.t, ws, 31_000);
    app.gw.sim.control.next('succeed', 2000); // captured at once, answered after our 1 s timeout
    const res = await pay(quoteId);
    expect(res.body).toMatchObject({
      quote: { status: 'processing' },
      intent: { status: 'processing' },
    });
    const intentId = res.body.intent.id as string;
    await waitFor('the reconciler (or the webhook) to settle it', async () => {
      const row = await one<{ status: string }>(
        'SELECT status FROM payment_intents WHERE id = $1',
        [intentId],
      );
      return row.status === 'settled';
    });
    expect(await paymentsOfIntent(intentId)).toHaveLength(1);
    expect(await count('rail_transfers WHERE intent_id = $1', [intentId])).toBe(1);
    expect(
      await count(`outbox_events WHERE subject_id = $1 AND type = 'intent.settled'`, [intentId]),
    ).toBe(1);
    expect(await one('SELECT status FROM quotes WHERE id = $1', [quoteId])).toEqual({
      status: 'paid',
    });
  });

  it('with webhooks lost, a hung debit is found by the reconciler once the gateway lets it go', async () => {
    app.gw.sim.control.webhooks({ drop: true });
    const quoteId = await createQuote(app.t, ws, 32_000);
    app.gw.sim.control.next('hang');
    const res = await pay(quoteId);
    expect(res.body.intent.status).toBe('processing');
    const intentId = res.body.intent.id as string;
    // While the payment hangs at the gateway, asking changes nothing: it is not final.
    await app.t.get(RailReconciler).sweep();
    expect(await one('SELECT status FROM payment_intents WHERE id = $1', [intentId])).toEqual({
      status: 'processing',
    });
    app.gw.sim.control.release('fail');
    await waitFor('the reconciler to fail it', async () => {
      const row = await one<{ status: string }>(
        'SELECT status FROM payment_intents WHERE id = $1',
        [intentId],
      );
      return row.status === 'failed';
    });
    expect(await paymentsOfIntent(intentId)).toEqual([
      expect.objectContaining({ status: 'failed' }),
    ]);
    expect(await one('SELECT status FROM quotes WHERE id = $1', [quoteId])).toEqual({
      status: 'open',
    });
  });

  describe('refunds approved by a person', () => {
    async function settled(amountPaise: number): Promise<string> {
      const res = await pay(await createQuote(app.t, ws, amountPaise));
      expect(res.body.intent.status).toBe('settled');
      return res.body.intent.id as string;
    }

    async function approvedRefund(intentId: string, amountPaise: number): Promise<string> {
      const asked = await request(app.t.url)
        .post(`/v1/pay/intents/${intentId}/refunds`)
        .set(bearer(ws.seller.credential))
        .send({ amount_paise: amountPaise });
      expect(asked.status).toBe(201);
      await app.t
        .get(ApprovalsService)
        .decide(ws.workspaceId, asked.body.approval_id as string, ws.personId, 'approved');
      return asked.body.id as string;
    }

    const refundRow = (id: string) =>
      one<{ status: string; rail_reference: string | null }>(
        'SELECT status, rail_reference FROM refunds WHERE id = $1',
        [id],
      );

    it('runs on the gateway: a processed gateway refund is a succeeded refund with its id', async () => {
      const intentId = await settled(40_000);
      const refundId = await approvedRefund(intentId, 15_000);
      const row = await refundRow(refundId);
      expect(row.status).toBe('succeeded');
      expect(row.rail_reference).toMatch(/^rfnd_/);
      const gatewayRefund = await app.gw.client.getRefund(row.rail_reference as string);
      expect(gatewayRefund).toMatchObject({
        amount: 15_000,
        receipt: refundId,
        status: 'processed',
      });
      expect(
        await one('SELECT amount_refunded_paise::int AS n FROM payment_intents WHERE id = $1', [
          intentId,
        ]),
      ).toEqual({ n: 15_000 });
    });

    it('a pending gateway refund stays processing until refund.processed arrives by webhook', async () => {
      app.gw.sim.control.refundMode('pending');
      const intentId = await settled(41_000);
      const refundId = await approvedRefund(intentId, 41_000);
      const row = await refundRow(refundId);
      expect(row).toEqual({
        status: 'processing',
        rail_reference: expect.stringMatching(/^rfnd_/),
      });
      app.gw.sim.control.processRefunds({ refundId: row.rail_reference as string });
      await waitFor(
        'refund.processed to be applied',
        async () => (await refundRow(refundId)).status === 'succeeded',
      );
      expect(
        await count(`outbox_events WHERE subject_id = $1 AND type = 'refund.succeeded'`, [
          refundId,
        ]),
      ).toBe(1);
    });

    it('with webhooks lost, the reconciler polls the gateway: a failed gateway refund is a failed refund', async () => {
      app.gw.sim.control.refundMode('pending');
      app.gw.sim.control.webhooks({ drop: true });
      const intentId = await settled(42_000);
      const refundId = await approvedRefund(intentId, 10_000);
      const row = await refundRow(refundId);
      expect(row.status).toBe('processing');
      app.gw.sim.control.processRefunds({
        refundId: row.rail_reference as string,
        status: 'failed',
      });
      await waitFor(
        'the reconciler to poll the refund',
        async () => (await refundRow(refundId)).status === 'failed',
      );
      expect(
        await one('SELECT amount_refunded_paise::int AS n FROM payment_intents WHERE id = $1', [
          intentId,
        ]),
      ).toEqual({ n: 0 });
    });
  });
});
