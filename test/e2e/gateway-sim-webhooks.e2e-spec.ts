import { validateWebhookSignature } from 'razorpay/dist/utils/razorpay-utils';

import { GatewayClient } from '../../src/rails/gateway/gateway-client';
import { verifyWebhookSignature } from '../../src/rails/gateway/gateway-signatures';
import {
  startTestGateway,
  startWebhookReceiver,
  TestGateway,
  WebhookReceiver,
} from '../support/gateway';

/**
 * The simulator's outbound webhooks against a local receiver: signed bodies (checked with the
 * official razorpay package), one event id per event across retries and duplicates, retries with
 * backoff on non-2xx and on timeouts, giving up after the last attempt, duplicates, reverse
 * order, hold + flush, drop, events waiting for a URL, redelivery, and the delivery log.
 */
describe('gateway simulator webhooks', () => {
  let gw: TestGateway;
  let client: GatewayClient;
  let hooks: WebhookReceiver;

  beforeAll(async () => {
    hooks = await startWebhookReceiver();
    gw = await startTestGateway({
      webhookUrl: hooks.url,
      webhookRetryMs: 25,
      webhookMaxAttempts: 4,
      // Long enough that a busy machine's first delivery (new connection, cold code) still gets
      // its answer in time; the receiver that never answers is timed out all the same.
      webhookTimeoutMs: 1000,
    });
    client = gw.client;
  });
  afterAll(async () => {
    await gw?.close();
    await hooks?.close();
  });
  beforeEach(() => {
    hooks.received.length = 0;
    hooks.respondWith(() => 200);
  });
  afterEach(async () => {
    gw.sim.control.reset();
    gw.sim.setWebhookUrl(hooks.url);
    await gw.sim.control.webhooksIdle();
  });

  async function paidOrder(amount = 10_000, receipt = 'wh'): Promise<string> {
    const o = await client.createOrder({ amount, currency: 'INR', receipt });
    await gw.sim.control.pay(o.id);
    return o.id;
  }

  const events = () => hooks.received.map((r) => r.body.event);

  it('sends signed events a receiver can verify with razorpay and with ours', async () => {
    const orderId = await paidOrder();
    await gw.sim.control.webhooksIdle();
    expect(events()).toEqual(['payment.authorized', 'payment.captured', 'order.paid']);
    for (const r of hooks.received) {
      expect(validateWebhookSignature(r.raw, r.signature!, gw.keys.webhookSecret)).toBe(true);
      expect(verifyWebhookSignature(r.raw, r.signature, gw.keys.webhookSecret)).toBe(true);
      expect(verifyWebhookSignature(r.raw, r.signature, 'another-secret')).toBe(false);
      expect(r.eventId).toMatch(/^evt_[A-Za-z0-9]{14}$/);
    }
    expect(new Set(hooks.received.map((r) => r.eventId)).size).toBe(3);
    const paid = hooks.received[2].body;
    expect(paid).toMatchObject({
      entity: 'event',
      account_id: 'acc_SimAccount0001',
      event: 'order.paid',
      contains: ['payment', 'order'],
      payload: {
        payment: { entity: { status: 'captured', order_id: orderId } },
        order: { entity: { id: orderId, status: 'paid' } },
      },
    });
    expect(typeof paid.created_at).toBe('number');
    // Each event carries the entity as it was when the event happened.
    expect(hooks.received[0].body.payload.payment?.entity).toMatchObject({
      status: 'authorized',
      captured: false,
      fee: 0,
    });
    expect(hooks.received[1].body.payload.payment?.entity).toMatchObject({
      status: 'captured',
      fee: 200,
      tax: 36,
    });
  });

  it('retries a non-2xx with backoff, same event id and same bytes, until delivered', async () => {
    hooks.respondWith((n) => (n <= 2 ? 500 : 200));
    const o = await client.createOrder({ amount: 10_000, currency: 'INR', receipt: 'r' });
    await gw.sim.control.pay(o.id, { vpa: 'failure@gateway' }).catch(() => undefined);
    await gw.sim.control.webhooksIdle();
    expect(hooks.received.map((r) => r.status)).toEqual([500, 500, 200]);
    expect(new Set(hooks.received.map((r) => r.eventId)).size).toBe(1);
    expect(new Set(hooks.received.map((r) => r.raw)).size).toBe(1);
    expect(hooks.received[0].body.event).toBe('payment.failed');
    const log = gw.sim.control.webhookLog();
    expect(log.map((l) => [l.kind, l.attempt, l.status_code, l.outcome])).toEqual([
      ['original', 1, 500, 'failed'],
      ['retry', 2, 500, 'failed'],
      ['retry', 3, 200, 'delivered'],
    ]);
    // Backoff doubles: ≥ 25 ms, then ≥ 50 ms.
    expect(log[1].at_ms - log[0].at_ms).toBeGreaterThanOrEqual(24);
    expect(log[2].at_ms - log[1].at_ms).toBeGreaterThanOrEqual(49);
    expect(gw.sim.control.webhookEvents()[0]).toMatchObject({ state: 'delivered', attempts: 3 });
  });

  it('a receiver that does not answer in time is retried; after the last attempt it gives up', async () => {
    hooks.respondWith((n) => (n === 1 ? 0 : 503));
    const o = await client.createOrder({ amount: 10_000, currency: 'INR', receipt: 'r' });
    await gw.sim.control.pay(o.id, { vpa: 'failure@gateway' }).catch(() => undefined);
    await gw.sim.control.webhooksIdle();
    const log = gw.sim.control.webhookLog();
    expect(log).toHaveLength(4);
    expect(log[0]).toMatchObject({ status_code: null, error: 'timeout after 1000 ms' });
    expect(log.slice(1).map((l) => l.status_code)).toEqual([503, 503, 503]);
    expect(gw.sim.control.webhookEvents()[0]).toMatchObject({ state: 'failed', attempts: 4 });
  });

  it('duplicate: n extra deliveries of each event under the same id', async () => {
    gw.sim.control.webhooks({ duplicate: 2 });
    await paidOrder();
    await gw.sim.control.webhooksIdle();
    expect(events()).toEqual([
      ...Array(3).fill('payment.authorized'),
      ...Array(3).fill('payment.captured'),
      ...Array(3).fill('order.paid'),
    ]);
    expect(new Set(hooks.received.map((r) => r.eventId)).size).toBe(3);
    for (const id of new Set(hooks.received.map((r) => r.eventId))) {
      const copies = hooks.received.filter((r) => r.eventId === id);
      expect(new Set(copies.map((c) => c.raw)).size).toBe(1);
    }
    expect(gw.sim.control.webhookLog().filter((l) => l.kind === 'duplicate')).toHaveLength(6);
  });

  it('reverse_order: the events of one action arrive last first', async () => {
    gw.sim.control.webhooks({ reverse_order: true });
    await paidOrder();
    await gw.sim.control.webhooksIdle();
    expect(events()).toEqual(['order.paid', 'payment.captured', 'payment.authorized']);
  });

  it('hold until flush, then deliver the held events in reverse order', async () => {
    const res = await fetch(`${gw.sim.url}/__sim/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hold: true }),
    });
    expect(await res.json()).toMatchObject({ mode: { hold: true } });
    const first = await paidOrder(10_000, 'first');
    const second = await paidOrder(20_000, 'second');
    await gw.sim.control.webhooksIdle();
    expect(hooks.received).toHaveLength(0);
    expect(gw.sim.control.webhookLog().every((l) => l.outcome === 'held')).toBe(true);

    await fetch(`${gw.sim.url}/__sim/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ flush: true, reverse_order: true }),
    });
    await gw.sim.control.webhooksIdle();
    const orderOf = (r: (typeof hooks.received)[number]) =>
      r.body.payload.order?.entity.id ?? r.body.payload.payment?.entity.order_id;
    expect(hooks.received.map((r) => [r.body.event, orderOf(r)])).toEqual([
      ['order.paid', second],
      ['payment.captured', second],
      ['payment.authorized', second],
      ['order.paid', first],
      ['payment.captured', first],
      ['payment.authorized', first],
    ]);
    // Flush ended the hold: the next event goes straight out.
    gw.sim.control.webhooks({ reverse_order: false });
    await paidOrder(30_000, 'third');
    await gw.sim.control.webhooksIdle();
    expect(hooks.received).toHaveLength(9);
  });

  it('drop: events are logged as dropped and never sent; a count drops only that many', async () => {
    gw.sim.control.webhooks({ drop: true });
    await paidOrder();
    gw.sim.control.webhooks({ drop: 1 });
    await paidOrder();
    await gw.sim.control.webhooksIdle();
    expect(events()).toEqual(['payment.captured', 'order.paid']);
    const dropped = gw.sim.control.webhookLog().filter((l) => l.outcome === 'dropped');
    expect(dropped).toHaveLength(4);
    expect(gw.sim.control.webhookEvents().filter((e) => e.state === 'dropped')).toHaveLength(4);
  });

  it('events wait for a URL; redelivery resends the same event', async () => {
    gw.sim.setWebhookUrl(null);
    await paidOrder();
    await gw.sim.control.webhooksIdle();
    expect(hooks.received).toHaveLength(0);
    gw.sim.setWebhookUrl(hooks.url);
    await gw.sim.control.webhooksIdle();
    expect(events()).toEqual(['payment.authorized', 'payment.captured', 'order.paid']);
    const id = hooks.received[2].eventId!;
    const res = await fetch(`${gw.sim.url}/__sim/webhooks/redeliver`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ event_id: id }),
    });
    expect(res.status).toBe(200);
    await gw.sim.control.webhooksIdle();
    expect(hooks.received[3].eventId).toBe(id);
    expect(hooks.received[3].raw).toBe(hooks.received[2].raw);
    const log = (await (await fetch(`${gw.sim.url}/__sim/webhooks/log`)).json()) as {
      count: number;
      items: { kind: string }[];
    };
    expect(log.count).toBe(4);
    expect(log.items[3].kind).toBe('redelivery');
  });

  it('refund, token, payment link, settlement and Reserve Pay events', async () => {
    const orderId = await paidOrder(10_000);
    const [payment] = await client.listOrderPayments(orderId);
    await client.createRefund(payment.id, { amount: 1_000 });

    const customer = await client.createCustomer({ name: 'Asha' });
    const reg = await client.createOrder({
      amount: 0,
      currency: 'INR',
      receipt: 'reg',
      method: 'upi',
      customer_id: customer.id,
      token: { max_amount: 10_000, expire_at: 4_000_000_000, frequency: 'monthly' },
    });
    await gw.sim.control.authorizeToken(reg.id);
    await client.cancelToken(customer.id, reg.token_id!);

    const link = await client.createPaymentLink({
      amount: 500,
      currency: 'INR',
      reference_id: 'ref-1',
      description: 'Link',
    });
    await gw.sim.control.payLink(link.id);
    gw.sim.control.settle();

    const block = await client.createReserveBlock({
      customer_id: customer.id,
      amount: 5_000,
      expire_at: 4_000_000_000,
      receipt: 'b',
    });
    gw.sim.control.authorizeBlock(block.id);
    await client.releaseReserveBlock(block.id);
    await gw.sim.control.webhooksIdle();

    expect(events().slice(3)).toEqual([
      'refund.created',
      'refund.processed',
      'payment.authorized',
      'payment.captured',
      'order.paid',
      'token.confirmed',
      'token.cancelled',
      'payment.authorized',
      'payment.captured',
      'order.paid',
      'payment_link.paid',
      'settlement.processed',
      'reserve_pay.block.active',
      'reserve_pay.block.released',
    ]);
    const by = (name: string) => hooks.received.find((r) => r.body.event === name)!.body;
    expect(by('refund.processed')).toMatchObject({
      contains: ['refund', 'payment'],
      payload: {
        refund: { entity: { amount: 1_000, status: 'processed' } },
        payment: { entity: { id: payment.id, amount_refunded: 1_000 } },
      },
    });
    expect(by('token.confirmed').payload.token?.entity).toMatchObject({
      id: reg.token_id,
      recurring_details: { status: 'confirmed' },
    });
    expect(by('payment_link.paid').payload.payment_link?.entity).toMatchObject({
      id: link.id,
      status: 'paid',
    });
    expect(by('settlement.processed').payload.settlement?.entity.id).toMatch(/^setl_/);
    expect(by('reserve_pay.block.active').payload.reserve_pay_block?.entity).toMatchObject({
      id: block.id,
      status: 'active',
    });
    for (const r of hooks.received) {
      expect(validateWebhookSignature(r.raw, r.signature!, gw.keys.webhookSecret)).toBe(true);
    }
  });
});
