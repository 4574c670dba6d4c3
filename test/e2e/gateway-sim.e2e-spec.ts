import { validatePaymentVerification } from 'razorpay/dist/utils/razorpay-utils';

import { GatewayClient, GatewayError } from '../../src/rails/gateway/gateway-client';
import { verifyPaymentSignature } from '../../src/rails/gateway/gateway-signatures';
import { startTestGateway, TestGateway } from '../support/gateway';

/**
 * The typed gateway client (src/rails/gateway/gateway-client.ts) against the running gateway simulator
 * (gateway-sim/), every client method at least once: orders, checkout payments and their outcome
 * controls, capture, idempotency, refunds, customers + recurring tokens, settlements and the
 * recon report with fee/tax maths and injected mismatches, payment links, Reserve Pay. Signatures
 * the simulator makes are checked with the official razorpay package.
 */
describe('gateway simulator API through the typed client', () => {
  let gw: TestGateway;
  let client: GatewayClient;

  beforeAll(async () => {
    gw = await startTestGateway();
    client = gw.client;
  });
  afterAll(() => gw?.close());
  afterEach(() => gw.sim.control.reset());

  async function gatewayError(p: Promise<unknown>): Promise<GatewayError> {
    const err = await p.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(GatewayError);
    return err as GatewayError;
  }

  const order = (amount = 10_000, receipt = 'rcpt-1', extra = {}) =>
    client.createOrder({ amount, currency: 'INR', receipt, ...extra });

  const razorpayValid = (orderId: string, paymentId: string, signature: string) =>
    validatePaymentVerification(
      { order_id: orderId, payment_id: paymentId },
      signature,
      gw.keys.keySecret,
    );

  describe('auth', () => {
    it('refuses a wrong or missing key with 401, not retryable', async () => {
      const wrong = new GatewayClient({
        apiUrl: gw.sim.url,
        keyId: gw.keys.keyId,
        keySecret: 'wrong',
        timeoutMs: 2000,
      });
      const err = await gatewayError(wrong.findOrdersByReceipt('x'));
      expect(err).toMatchObject({ status: 401, retryable: false });
      const res = await fetch(`${gw.sim.url}/v1/orders?receipt=x`);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: { code: 'BAD_REQUEST_ERROR' } });
    });
  });

  describe('orders and checkout payments', () => {
    it('creates, reads and finds orders by receipt', async () => {
      const a = await order(10_000, 'intent-A', { notes: { intent: 'pi_1' } });
      await order(20_000, 'intent-B');
      const a2 = await order(30_000, 'intent-A');
      expect(a).toMatchObject({
        entity: 'order',
        amount: 10_000,
        amount_paid: 0,
        amount_due: 10_000,
        currency: 'INR',
        receipt: 'intent-A',
        status: 'created',
        attempts: 0,
        notes: { intent: 'pi_1' },
      });
      expect(a.id).toMatch(/^order_[A-Za-z0-9]{14}$/);
      expect(await client.getOrder(a.id)).toEqual(a);
      const found = await client.findOrdersByReceipt('intent-A');
      expect(found.map((o) => o.id).sort()).toEqual([a.id, a2.id].sort());
      expect(await client.findOrdersByReceipt('nothing')).toEqual([]);
    });

    it('checks order input at its boundaries', async () => {
      expect(await gatewayError(order(99))).toMatchObject({ status: 400, field: 'amount' });
      await expect(order(100)).resolves.toMatchObject({ amount: 100 });
      expect(await gatewayError(order(100.5))).toMatchObject({ field: 'amount' });
      expect(await gatewayError(order(100, 'r'.repeat(41)))).toMatchObject({ field: 'receipt' });
      await expect(order(100, 'r'.repeat(40))).resolves.toBeTruthy();
      expect(
        await gatewayError(
          client.createOrder({ amount: 100, currency: 'USD' as 'INR', receipt: 'r' }),
        ),
      ).toMatchObject({ field: 'currency' });
      expect(await gatewayError(client.getOrder('order_doesnotexist00'))).toMatchObject({
        status: 400,
        code: 'BAD_REQUEST_ERROR',
      });
    });

    it('a checkout payment is captured with fee and tax, signed as razorpay checks', async () => {
      const o = await order(13_875);
      const res = await gw.sim.control.pay(o.id);
      expect(res.gateway_order_id).toBe(o.id);
      expect(razorpayValid(o.id, res.gateway_payment_id, res.gateway_signature)).toBe(true);
      expect(
        verifyPaymentSignature(
          o.id,
          res.gateway_payment_id,
          res.gateway_signature,
          gw.keys.keySecret,
        ),
      ).toBe(true);
      const p = await client.getPayment(res.gateway_payment_id);
      expect(p).toMatchObject({
        entity: 'payment',
        amount: 13_875,
        status: 'captured',
        captured: true,
        order_id: o.id,
        method: 'upi',
        vpa: 'success@gateway',
        fee: 278, // 2% of 13875 = 277.5 → 278
        tax: 50, // 18% of 278 = 50.04 → 50
        amount_refunded: 0,
        refund_status: null,
        error_code: null,
      });
      expect(await client.getOrder(o.id)).toMatchObject({
        status: 'paid',
        amount_paid: 13_875,
        amount_due: 0,
        attempts: 1,
      });
      expect(await client.listOrderPayments(o.id)).toEqual([p]);
      // A paid order takes no further payment.
      await expect(gw.sim.control.pay(o.id)).rejects.toMatchObject({ status: 400 });
    });

    it.each([
      [10_051, 'insufficient_funds', 'BAD_REQUEST_ERROR'],
      [10_052, 'payment_declined', 'BAD_REQUEST_ERROR'],
      [10_053, 'bank_unavailable', 'GATEWAY_ERROR'],
    ])('amount %i fails with %s; the order can then be paid', async (amount, reason, code) => {
      const o = await order(amount);
      await expect(gw.sim.control.pay(o.id)).rejects.toMatchObject({
        status: 400,
        extras: { reason, metadata: { order_id: o.id } },
      });
      const [failed] = await client.listOrderPayments(o.id);
      expect(failed).toMatchObject({
        status: 'failed',
        captured: false,
        error_code: code,
        error_reason: reason,
        fee: 0,
      });
      expect(await client.getOrder(o.id)).toMatchObject({ status: 'attempted', attempts: 1 });
      // Retry on the same order: an explicit control outcome beats the amount trigger.
      gw.sim.control.next('succeed');
      const ok = await gw.sim.control.pay(o.id);
      expect(razorpayValid(o.id, ok.gateway_payment_id, ok.gateway_signature)).toBe(true);
      expect(await client.getOrder(o.id)).toMatchObject({ status: 'paid', attempts: 2 });
      expect((await client.listOrderPayments(o.id)).map((p) => p.status)).toEqual([
        'failed',
        'captured',
      ]);
    });

    it('amounts ending in 50 and 54 paise succeed (trigger boundaries)', async () => {
      for (const amount of [10_050, 10_054]) {
        const o = await order(amount);
        await expect(gw.sim.control.pay(o.id)).resolves.toBeTruthy();
      }
    });

    it('VPA failure@gateway fails; /__sim/next fail beats success@gateway', async () => {
      const o = await order();
      await expect(gw.sim.control.pay(o.id, { vpa: 'failure@gateway' })).rejects.toMatchObject({
        extras: { reason: 'payment_failed' },
      });
      const res = await fetch(`${gw.sim.url}/__sim/next`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ outcome: 'fail' }),
      });
      expect(await res.json()).toEqual({ queued: 1 });
      await expect(gw.sim.control.pay(o.id, { vpa: 'success@gateway' })).rejects.toBeTruthy();
      await expect(gw.sim.control.pay(o.id, { vpa: 'success@gateway' })).resolves.toBeTruthy();
    });

    it('hang@gateway holds the payment until /__sim/release', async () => {
      const o = await order();
      const pending = gw.sim.control.pay(o.id, { vpa: 'hang@gateway' });
      await waitUntil(() => gw.sim.control.hanging() === 1);
      expect((await client.listOrderPayments(o.id))[0].status).toBe('created');
      const rel = await fetch(`${gw.sim.url}/__sim/release`, { method: 'POST' });
      expect(await rel.json()).toEqual({ released: 1 });
      const done = await pending;
      expect((await client.getPayment(done.gateway_payment_id)).status).toBe('captured');
    });

    it('payment_capture:false leaves it authorized until capturePayment for the exact amount', async () => {
      const o = await order(50_000, 'manual', { payment_capture: false });
      const { gateway_payment_id: id } = await gw.sim.control.pay(o.id);
      expect(await client.getPayment(id)).toMatchObject({ status: 'authorized', fee: 0 });
      expect((await client.getOrder(o.id)).status).toBe('attempted');
      expect(
        await gatewayError(client.capturePayment(id, { amount: 49_999, currency: 'INR' })),
      ).toMatchObject({ status: 400, field: 'amount' });
      const captured = await client.capturePayment(
        id,
        { amount: 50_000, currency: 'INR' },
        'cap-1',
      );
      expect(captured).toMatchObject({ status: 'captured', fee: 1_000, tax: 180 });
      expect(await client.capturePayment(id, { amount: 50_000, currency: 'INR' }, 'cap-1')).toEqual(
        captured,
      );
      expect(
        await gatewayError(client.capturePayment(id, { amount: 50_000, currency: 'INR' })),
      ).toMatchObject({ status: 400, description: 'This payment has already been captured' });
      expect((await client.getOrder(o.id)).status).toBe('paid');
    });
  });

  describe('idempotency', () => {
    it('the same key gives the same stored answer and creates one order', async () => {
      const body = { amount: 10_000, currency: 'INR' as const, receipt: 'idem-receipt' };
      const [a, b] = await Promise.all([
        client.createOrder(body, 'key-1'),
        client.createOrder(body, 'key-1'),
      ]);
      const c = await client.createOrder(body, 'key-1');
      expect(b).toEqual(a);
      expect(c).toEqual(a);
      expect(await client.findOrdersByReceipt('idem-receipt')).toHaveLength(1);
      await client.createOrder(body, 'key-2');
      expect(await client.findOrdersByReceipt('idem-receipt')).toHaveLength(2);
    });

    it('a stored 4xx answer is replayed; a key reused for another request is a 400', async () => {
      const bad = { amount: 1, currency: 'INR' as const, receipt: 'r' };
      const e1 = await gatewayError(client.createOrder(bad, 'key-bad'));
      const e2 = await gatewayError(client.createOrder(bad, 'key-bad'));
      expect(e2.description).toBe(e1.description);
      const other = await gatewayError(
        client.createOrder({ amount: 200, currency: 'INR', receipt: 'r' }, 'key-bad'),
      );
      expect(other).toMatchObject({ status: 400, field: 'idempotency_key' });
    });

    it('a caller that timed out on a hung debit gets the stored answer when it retries', async () => {
      const { customer, token } = await confirmedToken();
      const debitOrder = await order(5_000, 'debit-1');
      const input = {
        amount: 5_000,
        currency: 'INR' as const,
        order_id: debitOrder.id,
        customer_id: customer.id,
        token: token.id,
        recurring: '1' as const,
      };
      gw.sim.control.next('hang');
      const impatient = new GatewayClient({
        apiUrl: gw.sim.url,
        keyId: gw.keys.keyId,
        keySecret: gw.keys.keySecret,
        timeoutMs: 200,
      });
      const timeout = await gatewayError(impatient.createRecurringPayment(input, 'debit-key'));
      expect(timeout).toMatchObject({ code: 'TIMEOUT', retryable: true, status: 0 });
      // A retry while the first is still hung waits for the same answer.
      const retry = client.createRecurringPayment(input, 'debit-key');
      await new Promise((r) => setTimeout(r, 50));
      expect(gw.sim.control.release()).toBe(1);
      const result = await retry;
      expect(
        razorpayValid(
          result.razorpay_order_id,
          result.razorpay_payment_id,
          result.razorpay_signature,
        ),
      ).toBe(true);
      expect(await client.createRecurringPayment(input, 'debit-key')).toEqual(result);
      expect(await client.listOrderPayments(debitOrder.id)).toHaveLength(1);
    });

    it('respond_delay_ms: the money moves at once, the answer comes late', async () => {
      const o = await order(7_000, 'slow');
      gw.sim.control.next('succeed', 800);
      const started = Date.now();
      const pay = gw.sim.control.pay(o.id);
      const late = fetch(`${gw.sim.url}/__sim/next`); // unrelated call still answers
      expect((await late).status).toBe(200);
      const [p] = await client.listOrderPayments(o.id);
      expect(p.status).toBe('captured');
      expect(Date.now() - started).toBeLessThan(700);
      await pay;
      expect(Date.now() - started).toBeGreaterThanOrEqual(790);
    });
  });

  describe('refunds', () => {
    async function paid(amount = 10_000): Promise<string> {
      const o = await order(amount);
      return (await gw.sim.control.pay(o.id)).gateway_payment_id;
    }

    it('partial then full refund, never above captured − refunded', async () => {
      const pay = await paid(10_000);
      const r1 = await client.createRefund(pay, { amount: 4_000, receipt: 'rf-1' }, 'rf-key-1');
      expect(r1).toMatchObject({
        entity: 'refund',
        amount: 4_000,
        payment_id: pay,
        status: 'processed',
        receipt: 'rf-1',
      });
      expect(r1.id).toMatch(/^rfnd_[A-Za-z0-9]{14}$/);
      // The same key does not refund twice.
      expect(
        await client.createRefund(pay, { amount: 4_000, receipt: 'rf-1' }, 'rf-key-1'),
      ).toEqual(r1);
      expect(await client.getPayment(pay)).toMatchObject({
        amount_refunded: 4_000,
        refund_status: 'partial',
      });
      expect(await gatewayError(client.createRefund(pay, { amount: 6_001 }))).toMatchObject({
        status: 400,
        field: 'amount',
      });
      const r2 = await client.createRefund(pay); // the rest
      expect(r2.amount).toBe(6_000);
      expect(await client.getPayment(pay)).toMatchObject({
        amount_refunded: 10_000,
        refund_status: 'full',
      });
      expect(await gatewayError(client.createRefund(pay, { amount: 100 }))).toMatchObject({
        status: 400,
      });
      expect(await client.getRefund(r2.id)).toEqual(r2);
      expect((await client.listPaymentRefunds(pay)).map((r) => r.id)).toEqual([r1.id, r2.id]);
    });

    it('refuses a failed payment and an amount below 100 paise', async () => {
      const o = await order(10_051);
      await gw.sim.control.pay(o.id).catch(() => undefined);
      const [failed] = await client.listOrderPayments(o.id);
      expect(await gatewayError(client.createRefund(failed.id))).toMatchObject({ status: 400 });
      const pay = await paid();
      expect(await gatewayError(client.createRefund(pay, { amount: 99 }))).toMatchObject({
        field: 'amount',
      });
    });

    it('pending mode: pending until processed through the control API', async () => {
      const pay = await paid();
      gw.sim.control.refundMode('pending');
      const r = await client.createRefund(pay, { amount: 2_500 });
      expect(r.status).toBe('pending');
      expect((await client.getPayment(pay)).amount_refunded).toBe(2_500);
      const res = await fetch(`${gw.sim.url}/__sim/refunds/process`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ refund_id: r.id }),
      });
      expect(res.status).toBe(200);
      expect((await client.getRefund(r.id)).status).toBe('processed');
    });

    it('fail mode: the refund fails and its amount is refundable again', async () => {
      const pay = await paid();
      gw.sim.control.refundMode('fail');
      const r = await client.createRefund(pay, { amount: 10_000 });
      expect(r.status).toBe('failed');
      expect(await client.getPayment(pay)).toMatchObject({
        amount_refunded: 0,
        refund_status: null,
      });
      gw.sim.control.refundMode('processed');
      expect((await client.createRefund(pay)).amount).toBe(10_000);
    });
  });

  async function confirmedToken(maxAmount = 50_000, vpa?: string) {
    const customer = await client.createCustomer(
      { name: 'Asha Rao', email: 'asha@example.in', contact: '+919800000001' },
      `cust-${maxAmount}-${vpa ?? ''}`,
    );
    const reg = await client.createOrder({
      amount: 0,
      currency: 'INR',
      receipt: 'mandate-1',
      method: 'upi',
      customer_id: customer.id,
      token: {
        max_amount: maxAmount,
        expire_at: Math.floor(gw.sim.control.clock.nowMs() / 1000) + 30 * 86_400,
        frequency: 'monthly',
      },
    });
    expect(reg.token_id).toMatch(/^token_/);
    const token = await gw.sim.control.authorizeToken(reg.id, vpa ? { vpa } : {});
    return { customer, token, reg };
  }

  describe('customers, tokens and recurring debits', () => {
    it('registration: initiated → confirmed on approval, registration order paid', async () => {
      const customer = await client.createCustomer({ name: 'Ravi' });
      expect(customer).toMatchObject({ entity: 'customer', name: 'Ravi', email: null });
      expect(customer.id).toMatch(/^cust_[A-Za-z0-9]{14}$/);
      const reg = await client.createOrder({
        amount: 0,
        currency: 'INR',
        receipt: 'reg',
        method: 'upi',
        customer_id: customer.id,
        token: { max_amount: 1_500_000, expire_at: 4_000_000_000, frequency: 'as_presented' },
      });
      let [token] = await client.listTokens(customer.id);
      expect(token).toMatchObject({
        id: reg.token_id,
        entity: 'token',
        method: 'upi',
        recurring: true,
        recurring_details: { status: 'initiated' },
        max_amount: 1_500_000,
        frequency: 'as_presented',
        expired_at: 4_000_000_000,
      });
      // The person approves on the simulator's page.
      const page = await fetch(`${gw.sim.url}/authorize/${reg.id}`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Approve a UPI AutoPay mandate');
      const approve = await fetch(`${gw.sim.url}/authorize/${reg.id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ approve: true, vpa: 'asha@okbank' }),
      });
      expect(approve.status).toBe(200);
      [token] = await client.listTokens(customer.id);
      expect(token.recurring_details.status).toBe('confirmed');
      expect(token.vpa).toBe('asha@okbank');
      expect(await client.getOrder(reg.id)).toMatchObject({ status: 'paid', amount_paid: 0 });
      const [p] = await client.listOrderPayments(reg.id);
      expect(p).toMatchObject({ status: 'captured', token_id: token.id, customer_id: customer.id });
    });

    it('a rejected registration leaves the token rejected and the payment failed', async () => {
      const customer = await client.createCustomer({ name: 'Ravi' });
      const reg = await client.createOrder({
        amount: 0,
        currency: 'INR',
        receipt: 'reg',
        method: 'upi',
        customer_id: customer.id,
        token: { max_amount: 10_000, expire_at: 4_000_000_000, frequency: 'monthly' },
      });
      await gw.sim.control.authorizeToken(reg.id, { approve: false });
      const [token] = await client.listTokens(customer.id);
      expect(token.recurring_details.status).toBe('rejected');
      expect((await client.listOrderPayments(reg.id))[0]).toMatchObject({
        status: 'failed',
        error_reason: 'mandate_rejected',
      });
    });

    it('server-side debits: signed result, max_amount boundary, expiry, cancellation', async () => {
      const { customer, token } = await confirmedToken(50_000);
      const debit = async (amount: number, key?: string) => {
        const o = await order(amount, 'cycle');
        return client.createRecurringPayment(
          {
            amount,
            currency: 'INR',
            order_id: o.id,
            customer_id: customer.id,
            token: token.id,
            recurring: '1',
            description: 'Monthly plan',
          },
          key,
        );
      };
      const ok = await debit(50_000); // exactly max_amount
      expect(
        razorpayValid(ok.razorpay_order_id, ok.razorpay_payment_id, ok.razorpay_signature),
      ).toBe(true);
      expect(await client.getPayment(ok.razorpay_payment_id)).toMatchObject({
        status: 'captured',
        token_id: token.id,
        customer_id: customer.id,
        description: 'Monthly plan',
      });
      expect(await gatewayError(debit(50_001))).toMatchObject({ status: 400, field: 'amount' });
      // An amount trigger fails the debit with the payment's ids in the error.
      const failed = await gatewayError(debit(10_051));
      expect(failed).toMatchObject({ status: 400, reason: 'insufficient_funds', retryable: false });
      expect(failed.metadata?.payment_id).toMatch(/^pay_/);
      // Past expired_at the token is refused.
      gw.sim.control.clock.advance(31 * 86_400_000);
      expect(await gatewayError(debit(1_000))).toMatchObject({ field: 'token' });
      gw.sim.control.clock.set(Date.now());
      await expect(debit(1_000)).resolves.toBeTruthy();
      const cancelled = await client.cancelToken(customer.id, token.id);
      expect(cancelled.recurring_details.status).toBe('cancelled');
      expect(await client.cancelToken(customer.id, token.id)).toEqual(cancelled);
      expect(await gatewayError(debit(1_000))).toMatchObject({ field: 'token' });
    });

    it('a token authorised with failure@gateway fails its debits; the amount must match the order', async () => {
      const { customer, token } = await confirmedToken(50_000, 'failure@gateway');
      const o = await order(2_000);
      const input = {
        currency: 'INR' as const,
        order_id: o.id,
        customer_id: customer.id,
        token: token.id,
        recurring: '1' as const,
      };
      expect(
        await gatewayError(client.createRecurringPayment({ ...input, amount: 2_100 })),
      ).toMatchObject({ field: 'amount' });
      expect(
        await gatewayError(client.createRecurringPayment({ ...input, amount: 2_000 })),
      ).toMatchObject({ reason: 'payment_failed', metadata: { order_id: o.id } });
    });
  });

  describe('settlements and the recon report', () => {
    it('settles captured payments and processed refunds with 2% fee and 18% tax', async () => {
      gw.sim.control.clock.set(Date.UTC(2026, 2, 31, 19, 0, 0)); // 1 Apr 2026, 00:30 IST
      const amounts = [1_000, 125, 13_875];
      const pays: string[] = [];
      for (const [i, amount] of amounts.entries()) {
        const o = await order(amount, `setl-${i}`);
        pays.push((await gw.sim.control.pay(o.id)).gateway_payment_id);
      }
      const refund = await client.createRefund(pays[2], { amount: 5_000 });
      const failedOrder = await order(10_051, 'setl-failed');
      await gw.sim.control.pay(failedOrder.id).catch(() => undefined);

      const settlement = gw.sim.control.settle()!;
      // fees: 20 + 3 + 278 = 301; tax: 4 + 1 + 50 = 55
      // credits: (1000−24) + (125−4) + (13875−328) = 976 + 121 + 13547 = 14644; minus refund 5000
      expect(settlement).toMatchObject({
        entity: 'settlement',
        fees: 301,
        tax: 55,
        amount: 9_644,
        status: 'processed',
      });
      expect(settlement.utr).toMatch(/^[A-Z0-9]{12}$/);
      expect(await client.getSettlement(settlement.id)).toEqual(settlement);
      expect(gw.sim.control.settle()).toBeNull(); // nothing left

      const lines = await client.getSettlementRecon({ year: 2026, month: 4, day: 1 });
      expect(lines).toHaveLength(4);
      expect(lines.find((l) => l.entity_id === pays[2])).toMatchObject({
        type: 'payment',
        amount: 13_875,
        fee: 278,
        tax: 50,
        credit: 13_547,
        debit: 0,
        settlement_id: settlement.id,
        settlement_utr: settlement.utr,
        order_receipt: 'setl-2',
      });
      expect(lines.find((l) => l.entity_id === refund.id)).toMatchObject({
        type: 'refund',
        amount: 5_000,
        fee: 0,
        tax: 0,
        debit: 5_000,
        credit: 0,
        order_receipt: 'setl-2',
      });
      const sum = lines.reduce((s, l) => s + l.credit - l.debit, 0);
      expect(sum).toBe(settlement.amount);
      // Days are IST days: 31 March holds nothing; the month holds all four.
      expect(await client.getSettlementRecon({ year: 2026, month: 3, day: 31 })).toEqual([]);
      expect(await client.getSettlementRecon({ year: 2026, month: 4 })).toHaveLength(4);
      expect(
        await gatewayError(client.getSettlementRecon({ year: 2026, month: 13 })),
      ).toMatchObject({ field: 'month' });
    });

    it('injected mismatches: a wrong amount, a missing payment, an unknown payment', async () => {
      const pays: string[] = [];
      for (const i of [0, 1, 2]) {
        const o = await order(10_000, `inj-${i}`);
        pays.push((await gw.sim.control.pay(o.id)).gateway_payment_id);
      }
      gw.sim.control.injectSettlement({ kind: 'amount', paymentId: pays[0], delta: -1 });
      const res = await fetch(`${gw.sim.url}/__sim/settlements/inject`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'missing', payment_id: pays[1] }),
      });
      expect(res.status).toBe(200);
      gw.sim.control.injectSettlement({ kind: 'unknown', amount: 777 });
      const settlement = gw.sim.control.settle()!;
      const now = new Date(gw.sim.control.clock.nowMs() + 5.5 * 3600_000);
      const lines = (
        await client.getSettlementRecon({
          year: now.getUTCFullYear(),
          month: now.getUTCMonth() + 1,
          day: now.getUTCDate(),
        })
      ).filter((l) => l.settlement_id === settlement.id);
      expect(lines.find((l) => l.entity_id === pays[0])?.amount).toBe(9_999);
      expect(lines.find((l) => l.entity_id === pays[1])).toBeUndefined();
      const unknown = lines.find((l) => !pays.includes(l.entity_id));
      expect(unknown).toMatchObject({ amount: 777, order_id: null, order_receipt: null });
      // The missing payment stays out of later cycles too.
      expect(gw.sim.control.settle()).toBeNull();
    });
  });

  describe('payment links', () => {
    it('create, pay on the link page, signed callback, paid', async () => {
      const link = await client.createPaymentLink(
        {
          amount: 25_000,
          currency: 'INR',
          reference_id: 'quote-42',
          description: 'Tea hamper',
          customer: { name: 'Asha' },
          callback_url: 'https://shop.example/return?x=1',
          callback_method: 'get',
          notes: { quote: 'q_42' },
        },
        'plink-key',
      );
      expect(link).toMatchObject({
        entity: 'payment_link',
        status: 'created',
        amount_paid: 0,
        reference_id: 'quote-42',
      });
      expect(link.short_url).toBe(`${gw.sim.url}/l/${link.id}`);
      expect(await client.getOrder(link.order_id)).toMatchObject({ receipt: 'quote-42' });
      const page = await fetch(link.short_url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Tea hamper');

      const { redirect } = await gw.sim.control.payLink(link.id);
      const url = new URL(redirect!);
      expect(url.origin + url.pathname).toBe('https://shop.example/return');
      expect(url.searchParams.get('x')).toBe('1');
      expect(
        validatePaymentVerification(
          {
            payment_link_id: url.searchParams.get('gateway_payment_link_id')!,
            payment_link_reference_id: url.searchParams.get('gateway_payment_link_reference_id')!,
            payment_link_status: url.searchParams.get('gateway_payment_link_status')!,
            payment_id: url.searchParams.get('gateway_payment_id')!,
          },
          url.searchParams.get('gateway_signature')!,
          gw.keys.keySecret,
        ),
      ).toBe(true);
      expect(await client.getPaymentLink(link.id)).toMatchObject({
        status: 'paid',
        amount_paid: 25_000,
      });
      expect(await gatewayError(client.cancelPaymentLink(link.id))).toMatchObject({ status: 400 });
      expect(
        await gatewayError(
          client.createPaymentLink({
            amount: 100,
            currency: 'INR',
            reference_id: 'quote-42',
            description: 'again',
          }),
        ),
      ).toMatchObject({ field: 'reference_id' });
    });

    it('cancel, and expiry by the clock', async () => {
      const a = await client.createPaymentLink({
        amount: 1_000,
        currency: 'INR',
        reference_id: 'a',
        description: 'A',
      });
      expect((await client.cancelPaymentLink(a.id, 'cancel-a')).status).toBe('cancelled');
      await expect(gw.sim.control.payLink(a.id)).rejects.toMatchObject({ status: 400 });
      const expireBy = Math.floor(gw.sim.control.clock.nowMs() / 1000) + 3600;
      const b = await client.createPaymentLink({
        amount: 1_000,
        currency: 'INR',
        reference_id: 'b',
        description: 'B',
        expire_by: expireBy,
      });
      gw.sim.control.clock.advance(3_599_000);
      expect((await client.getPaymentLink(b.id)).status).toBe('created');
      gw.sim.control.clock.advance(1_000);
      expect((await client.getPaymentLink(b.id)).status).toBe('expired');
      await expect(gw.sim.control.payLink(b.id)).rejects.toMatchObject({ status: 400 });
    });
  });

  describe('Reserve Pay', () => {
    it('block, authorise, debit in parts up to the amount, release the rest', async () => {
      const customer = await client.createCustomer({ name: 'Meera' });
      const expireAt = Math.floor(gw.sim.control.clock.nowMs() / 1000) + 7 * 86_400;
      const block = await client.createReserveBlock(
        {
          customer_id: customer.id,
          vpa: 'meera@okbank',
          amount: 10_000,
          expire_at: expireAt,
          receipt: 'blk-1',
        },
        'blk-key',
      );
      expect(block).toMatchObject({ status: 'created', amount: 10_000, debited: 0 });
      expect(block.id).toMatch(/^blk_[A-Za-z0-9]{14}$/);
      expect(
        await gatewayError(client.debitReserveBlock(block.id, { amount: 1_000, receipt: 'd0' })),
      ).toMatchObject({ status: 400 });
      gw.sim.control.authorizeBlock(block.id);
      expect((await client.getReserveBlock(block.id)).status).toBe('active');

      const p1 = await client.debitReserveBlock(block.id, { amount: 3_000, receipt: 'd1' }, 'd1');
      expect(p1).toMatchObject({
        entity: 'payment',
        status: 'captured',
        amount: 3_000,
        vpa: 'meera@okbank',
      });
      expect(
        await client.debitReserveBlock(block.id, { amount: 3_000, receipt: 'd1' }, 'd1'),
      ).toEqual(p1);
      expect(
        await gatewayError(client.debitReserveBlock(block.id, { amount: 7_001, receipt: 'd2' })),
      ).toMatchObject({ field: 'amount' });
      await client.debitReserveBlock(block.id, { amount: 2_000, receipt: 'd2' });
      expect(await client.getReserveBlock(block.id)).toMatchObject({ debited: 5_000 });
      const released = await client.releaseReserveBlock(block.id, 'rel-1');
      expect(released).toMatchObject({ status: 'released', debited: 5_000, released: 5_000 });
      expect(await gatewayError(client.releaseReserveBlock(block.id))).toMatchObject({
        status: 400,
      });
      expect(
        await gatewayError(client.debitReserveBlock(block.id, { amount: 100, receipt: 'd3' })),
      ).toMatchObject({ status: 400 });
    });

    it('a debit of exactly the rest succeeds; past expire_at the block is expired', async () => {
      const customer = await client.createCustomer({ name: 'Meera' });
      const expireAt = Math.floor(gw.sim.control.clock.nowMs() / 1000) + 3600;
      const block = await client.createReserveBlock({
        customer_id: customer.id,
        amount: 5_000,
        expire_at: expireAt,
        receipt: 'blk-2',
      });
      gw.sim.control.authorizeBlock(block.id);
      await client.debitReserveBlock(block.id, { amount: 5_000, receipt: 'all' });
      expect((await client.getReserveBlock(block.id)).debited).toBe(5_000);
      const other = await client.createReserveBlock({
        customer_id: customer.id,
        amount: 5_000,
        expire_at: expireAt,
        receipt: 'blk-3',
      });
      gw.sim.control.authorizeBlock(other.id);
      await client.debitReserveBlock(other.id, { amount: 1_000, receipt: 'part' });
      gw.sim.control.clock.advance(3_600_000);
      expect(await client.getReserveBlock(other.id)).toMatchObject({
        status: 'expired',
        released: 4_000,
      });
    });
  });
});

describe('gateway simulator control API over HTTP', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(() => gw?.close());

  const post = (path: string, body: unknown) =>
    fetch(`${gw.sim.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('clock: set, advance, and what it stamps', async () => {
    const at = Date.UTC(2027, 0, 15, 6, 0, 0);
    expect(await (await post('/__sim/clock', { now_ms: at })).json()).toMatchObject({});
    const now = (await (await fetch(`${gw.sim.url}/__sim/clock`)).json()) as { now_ms: number };
    expect(now.now_ms - at).toBeLessThan(1000);
    await post('/__sim/clock', { advance_ms: 86_400_000 });
    const o = await gw.client.createOrder({ amount: 100, currency: 'INR', receipt: 'c' });
    expect(o.created_at - (at / 1000 + 86_400)).toBeLessThan(2);
    expect((await post('/__sim/clock', {})).status).toBe(400);
    expect((await post('/__sim/clock', { now_ms: at, advance_ms: 1 })).status).toBe(400);
  });

  it('payments, state and reset', async () => {
    const o = await gw.client.createOrder({ amount: 100, currency: 'INR', receipt: 's' });
    const paid = await post('/__sim/payments', { order_id: o.id });
    expect(paid.status).toBe(200);
    const failed = await post('/__sim/payments', { order_id: o.id });
    expect(failed.status).toBe(400); // already paid
    const state = (await (await fetch(`${gw.sim.url}/__sim/state`)).json()) as {
      orders: unknown[];
      payments: unknown[];
    };
    expect(state.orders.length).toBeGreaterThan(0);
    expect((await post('/__sim/reset', {})).status).toBe(200);
    const after = (await (await fetch(`${gw.sim.url}/__sim/state`)).json()) as {
      orders: unknown[];
    };
    expect(after.orders).toEqual([]);
    expect(await gatewayErrorOf(gw.client.getOrder(o.id))).toMatchObject({ status: 400 });
  });

  it('unknown routes are 404 and wrong methods 405, in the gateway error shape', async () => {
    const r404 = await fetch(`${gw.sim.url}/v1/nothing`);
    expect(r404.status).toBe(404);
    expect(await r404.json()).toMatchObject({ error: { code: 'BAD_REQUEST_ERROR' } });
    expect((await fetch(`${gw.sim.url}/v1/orders/order_x`, { method: 'DELETE' })).status).toBe(405);
    expect((await post('/__sim/next', { outcome: 'explode' })).status).toBe(400);
    const badEscape = await fetch(`${gw.sim.url}/v1/orders/%E0%A4%A`, {
      headers: {
        authorization: `Basic ${Buffer.from(`${gw.keys.keyId}:${gw.keys.keySecret}`).toString('base64')}`,
      },
    });
    expect(badEscape.status).toBe(400);
    const bad = await fetch(`${gw.sim.url}/__sim/next`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(bad.status).toBe(400);
  });
});

async function gatewayErrorOf(p: Promise<unknown>): Promise<GatewayError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GatewayError);
  return err as GatewayError;
}

async function waitUntil(pred: () => boolean, timeoutMs = 3000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > until) {
      throw new Error('condition not met in time');
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}
