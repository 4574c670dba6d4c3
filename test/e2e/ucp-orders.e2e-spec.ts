import { randomUUID } from 'node:crypto';

import { bearer } from '../factories/intent.factory';
import { insertMandate, insertToken } from '../factories/payment-fixtures';
import { startApp, TestApp } from '../support/app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';
import request from '../support/ucp-contract';
import {
  expectValidUcpOrder,
  OrderReceiver,
  Received,
  startOrderReceiver,
  verifyUcpWebhook,
} from '../support/ucp-order-platform';
import { PlatformHost, platformProfile, startPlatformHost } from '../support/ucp-platform';
import { expectValidUcp } from '../support/ucp-schema';

/**
 * UCP orders (docs/ucp.md "Orders"): GET /ucp/orders/{id} for a completed UCP checkout, refunds
 * as adjustments, and order events POSTed to the webhook URL of the platform's order capability
 * config through the real outbox, dispatcher and Bull workers, signed with RFC 9421 (ES256) and
 * verified here with the independent http-message-signatures package against the JWK published
 * in /.well-known/ucp signing_keys.
 */

const FAST = { webhookRetryScheduleMs: [50, 100, 150], webhookDispatchIntervalMs: 50 };
const OFFERS = [{ sku: 'tea', name: 'Assam tea 1 kg', unit_paise: 45_000, category: 'food.tea' }];

async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 8000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) {
      return v;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

function profileWithOrders(webhookUrl: string): Record<string, unknown> {
  const base = platformProfile() as { ucp: { capabilities: Record<string, unknown> } };
  base.ucp.capabilities['dev.ucp.shopping.order'] = [
    {
      version: '2026-04-08',
      spec: 'https://ucp.dev/2026-04-08/specification/order',
      schema: 'https://ucp.dev/2026-04-08/schemas/shopping/order.json',
      config: { webhook_url: webhookUrl },
    },
  ];
  return base;
}

describe('UCP orders', () => {
  let t: TestApp;
  let host: PlatformHost;
  let ok: OrderReceiver;
  let gone: OrderReceiver;

  beforeAll(async () => {
    t = await startApp(FAST);
    ok = await startOrderReceiver();
    gone = await startOrderReceiver(() => 410);
    host = await startPlatformHost({
      '/platform': profileWithOrders(ok.url),
      '/gone-platform': profileWithOrders(gone.url),
    });
  });
  afterAll(async () => {
    await ok.close();
    await gone.close();
    await host.close();
    await t.close();
  });

  async function world() {
    const ws = await seedWorkspace(t);
    await request(t.url)
      .put(`/v1/pay/agents/${ws.seller.id}/listing`)
      .set(bearer(ws.seller.credential))
      .send({ listed: true, offers: OFFERS })
      .expect(200);
    return { ws, mandateId: await insertMandate(t, ws) };
  }

  const ucpHeaders = (ws: SeededWorkspace, profile: string, idem = true) => ({
    Authorization: `Bearer ${ws.merchantKey}`,
    'UCP-Agent': host.agent(profile),
    ...(idem ? { 'Idempotency-Key': randomUUID() } : {}),
  });

  /**
   * A UCP checkout, created with one pack, updated to two and completed (₹900: completed at once):
   * the whole REST walk a platform makes before the order exists.
   */
  async function buy(w: { ws: SeededWorkspace; mandateId: string }, profile: string) {
    const created = await request(t.url)
      .post('/ucp/checkout-sessions')
      .set(ucpHeaders(w.ws, profile))
      .send({ line_items: [{ item: { id: 'tea' }, quantity: 1 }] })
      .expect(201);
    const updated = await request(t.url)
      .put(`/ucp/checkout-sessions/${created.body.id}`)
      .set(ucpHeaders(w.ws, profile))
      .send({ id: created.body.id, line_items: [{ item: { id: 'tea' }, quantity: 2 }] })
      .expect(200);
    expect((updated.body.totals as { type: string; amount: number }[]).at(-1)?.amount).toBe(90_000);
    // This platform declares the order capability too, but a checkout answer lists only what it
    // carries (overview.md "Response Capability Selection"): checkout; order is the order's.
    expect(Object.keys(updated.body.ucp.capabilities as object)).toEqual([
      'dev.ucp.shopping.checkout',
    ]);
    const token = await insertToken(t, w.ws, {
      mandateId: w.mandateId,
      sessionId: created.body.id as string,
    });
    const done = await request(t.url)
      .post(`/ucp/checkout-sessions/${created.body.id}/complete`)
      .set(ucpHeaders(w.ws, profile))
      .send({
        payment: {
          instruments: [
            {
              id: 'instr_1',
              handler_id: 'svc_upi_mandate',
              type: 'svc_mandate',
              selected: true,
              credential: { type: 'svc_delegated_token', token },
            },
          ],
        },
      });
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('completed');
    return done.body as { id: string; order: { id: string; permalink_url: string } };
  }

  async function refund(ws: SeededWorkspace, sessionId: string, amount: number) {
    const [{ intent_id }] = await t.db.query<{ intent_id: string }[]>(
      'SELECT intent_id FROM checkout_sessions WHERE id = $1',
      [sessionId],
    );
    const res = await request(t.url)
      .post(`/v1/pay/intents/${intent_id}/refunds`)
      .set({ ...bearer(ws.seller.credential), 'Idempotency-Key': randomUUID() })
      .send({ amount_paise: amount, reason: 'Damaged pack' });
    expect(res.status).toBe(201);
    return res.body as { id: string };
  }

  it('declares the order capability and an ES256 signing key in /.well-known/ucp', async () => {
    const res = await request(t.url).get('/.well-known/ucp').expect(200);
    expectValidUcp('profile', res.body);
    expect(res.body.ucp.capabilities['dev.ucp.shopping.order']).toEqual([
      expect.objectContaining({ version: '2026-04-08' }),
    ]);
    expect(res.body.signing_keys).toEqual([
      expect.objectContaining({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' }),
    ]);
    expect(res.body.signing_keys[0].d).toBeUndefined();
  });

  it('GET /ucp/orders/{id}: the order of the completed checkout, refunds as adjustments; signed order events reach the platform webhook', async () => {
    const w = await world();
    const session = await buy(w, '/platform');
    const get = () =>
      request(t.url)
        .get(`/ucp/orders/${session.order.id}`)
        .set(ucpHeaders(w.ws, '/platform', false));

    const order = (await get().expect(200)).body;
    expectValidUcpOrder(order);
    expect(order).toMatchObject({
      ucp: { version: '2026-04-08', capabilities: { 'dev.ucp.shopping.order': [{}] } },
      id: session.order.id,
      checkout_id: session.id,
      permalink_url: session.order.permalink_url,
      currency: 'INR',
      line_items: [
        {
          item: { id: 'tea', title: 'Assam tea 1 kg', price: 45_000 },
          quantity: { original: 2, total: 2, fulfilled: 2 },
          status: 'fulfilled',
        },
      ],
      fulfillment: { expectations: [expect.objectContaining({ method_type: 'digital' })] },
      adjustments: [],
    });
    expect(order.totals).toEqual([
      expect.objectContaining({ type: 'subtotal', amount: 90_000 }),
      expect.objectContaining({ type: 'total', amount: 90_000 }),
    ]);

    // Order events: order_create and the digital delivery's update, signed.
    const keys = (await request(t.url).get('/.well-known/ucp').expect(200)).body
      .signing_keys as Record<string, string>[];
    const mine = (r: Received) => (JSON.parse(r.body) as { id: string }).id === session.order.id;
    await waitFor('two order events', () => ok.got.filter(mine).length >= 2);
    for (const r of ok.got.filter(mine)) {
      expect(r.method).toBe('POST');
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['ucp-agent']).toBe(`profile="${t.url}/.well-known/ucp"`);
      expect(r.headers['webhook-id']).toMatch(/^evt_/);
      expect(Number(r.headers['webhook-timestamp'])).toBeGreaterThan(0);
      expect(r.headers['signature-input']).toContain('"@method" "@authority" "@path"');
      expect(r.headers['signature-input']).toContain('"content-digest"');
      expect(r.headers['signature-input']).toContain('"ucp-agent"');
      expect(r.headers['signature-input']).toContain(`keyid="${keys[0].kid}"`);
      await expect(verifyUcpWebhook(r, ok.url, keys)).resolves.toBe(true);
      // Not simply saying yes: another body (its digest) or another path fails.
      await expect(verifyUcpWebhook({ ...r, body: `${r.body} ` }, ok.url, keys)).resolves.toBe(
        false,
      );
      await expect(verifyUcpWebhook(r, `${ok.url}/other`, keys)).resolves.toBe(false);
      expectValidUcpOrder(JSON.parse(r.body));
    }
    const events = ok.got.filter(mine).map((r) => JSON.parse(r.body) as Record<string, unknown>);
    expect(new Set(ok.got.filter(mine).map((r) => r.headers['webhook-id'])).size).toBe(2);
    // The last snapshot is what GET shows.
    expect(events.some((e) => JSON.stringify(e) === JSON.stringify(order))).toBe(true);

    // A refund: an adjustment on the order, and one more signed event with it.
    const asked = await refund(w.ws, session.id, 10_000);
    const after = (await get().expect(200)).body;
    expectValidUcpOrder(after);
    expect(after.adjustments).toEqual([
      expect.objectContaining({
        id: asked.id,
        type: 'refund',
        status: 'pending',
        totals: [expect.objectContaining({ type: 'total', amount: -10_000 })],
        description: 'Damaged pack',
      }),
    ]);
    await waitFor('refund event', () => ok.got.filter(mine).length >= 3);
    const third = ok.got.filter(mine)[2];
    await expect(verifyUcpWebhook(third, ok.url, keys)).resolves.toBe(true);
    expect(JSON.parse(third.body)).toEqual(after);

    // Another merchant's key sees no such order.
    const other = await world();
    const missing = await request(t.url)
      .get(`/ucp/orders/${session.order.id}`)
      .set(ucpHeaders(other.ws, '/platform', false))
      .expect(404);
    expectValidUcp('error', missing.body);
  });

  it('a 410 Gone from the platform disables its endpoint: no more deliveries, like other webhooks', async () => {
    const w = await world();
    const session = await buy(w, '/gone-platform');
    const endpoint = await waitFor('endpoint disabled', async () => {
      const rows = await t.db.query<{ id: string; status: string; disabled_reason: string }[]>(
        `SELECT id, status, disabled_reason FROM webhook_endpoints
          WHERE kind = 'ucp_order' AND workspace_id = $1`,
        [w.ws.workspaceId],
      );
      return rows[0]?.status === 'disabled' ? rows[0] : null;
    });
    expect(endpoint.disabled_reason).toBe('gone');
    const n = gone.got.length;
    await refund(w.ws, session.id, 5_000);
    await new Promise((r) => setTimeout(r, 500));
    // The delivery that got 410 is not retried, and new events are not delivered.
    expect(gone.got.length).toBeLessThanOrEqual(Math.max(n, 2));
    const [{ n: deliveries }] = await t.db.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1`,
      [endpoint.id],
    );
    expect(deliveries).toBeLessThanOrEqual(2);
  });
});
