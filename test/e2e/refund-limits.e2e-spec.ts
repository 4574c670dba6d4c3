import { randomUUID } from 'node:crypto';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';

import { ApprovalsService } from '../../src/approvals/approvals.service';
import { signIn } from '../factories/app-session.factory';
import { bearer, payFreeFormQuote } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { startApp, TestApp } from '../support/app';
import { createQuote, GatewayApp, startGatewayApp } from '../support/gateway-app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * Refund limits (docs/gateway.md "Refund limits"): each rail states what it refunds (PaymentRail's
 * refundLimits); a refund outside it is refused when it is asked, with our own code and the limit
 * in rupees, before a refund is stored or a person is asked; a remainder the rail cannot refund
 * shows on the intent (and the receipt page) as not refundable, with why.
 */

interface Harness {
  t: TestApp;
  ws: SeededWorkspace;
}

function helpers(h: () => Harness) {
  const one = async <T>(sql: string, params: unknown[]): Promise<T> =>
    (await h().t.db.query<T[]>(sql, params))[0];
  const count = async (sql: string, params: unknown[]) =>
    (await one<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params)).n;
  const refund = (intentId: string, body: Record<string, unknown>, key = randomUUID()) =>
    request(h().t.url)
      .post(`/v1/pay/intents/${intentId}/refunds`)
      .set({ ...bearer(h().ws.seller.credential), 'Idempotency-Key': key })
      .send(body);
  const approve = (approvalId: string) =>
    h().t.get(ApprovalsService).decide(h().ws.workspaceId, approvalId, h().ws.personId, 'approved');
  const intent = async (intentId: string) => {
    const res = await request(h().t.url)
      .get(`/v1/pay/intents/${intentId}`)
      .set(bearer(h().ws.seller.credential))
      .expect(200);
    return res.body as Record<string, unknown>;
  };
  const refundApprovals = () =>
    count(`approvals WHERE kind = 'refund' AND workspace_id = $1`, [h().ws.workspaceId]);
  const refundEvents = () =>
    count(`outbox_events WHERE type = 'refund.requested' AND workspace_id = $1`, [
      h().ws.workspaceId,
    ]);
  return { one, count, refund, approve, intent, refundApprovals, refundEvents };
}

describe('refund limits on the gateway rail (simulator: at least ₹1.00)', () => {
  let app: GatewayApp;
  let ws: SeededWorkspace;
  let mandateId: string;
  const h = helpers(() => ({ t: app.t, ws }));

  beforeAll(async () => {
    app = await startGatewayApp();
    ws = await seedWorkspace(app.t);
    mandateId = await createMandate(
      app.t,
      { workspaceId: ws.workspaceId, agentId: ws.buyer.id },
      { rail: 'upi_otm' },
    );
  });
  afterAll(() => app?.close());

  async function settled(amountPaise: number): Promise<{ id: string; receiptId: string }> {
    const res = await request(app.t.url)
      .post(`/v1/pay/quotes/${await createQuote(app.t, ws, amountPaise)}/pay`)
      .set({ ...bearer(ws.buyer.credential), 'Idempotency-Key': randomUUID() })
      .send({ mandate_id: mandateId });
    expect(res.body.intent.status).toBe('settled');
    return { id: res.body.intent.id as string, receiptId: res.body.intent.receipt_id as string };
  }

  /** The gateway's refunds of the intent's payment. */
  async function gatewayRefunds(intentId: string) {
    const { rail_reference } = await h.one<{ rail_reference: string }>(
      'SELECT rail_reference FROM payment_intents WHERE id = $1',
      [intentId],
    );
    return (await app.gw.client.listPaymentRefunds(rail_reference)).map((r) => ({
      amount: r.amount,
      status: r.status,
    }));
  }

  it('refuses 50 paise at once with refund_below_minimum naming ₹1.00: no refund, no approval, nothing at the gateway, the same answer on retry', async () => {
    const { id } = await settled(40_000);
    const approvalsBefore = await h.refundApprovals();
    const eventsBefore = await h.refundEvents();
    const key = randomUUID();
    const res = await h.refund(id, { amount_paise: 50 }, key);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      type: 'invalid_request',
      code: 'refund_below_minimum',
      param: '$.amount_paise',
    });
    expect(res.body.error.message).toContain('₹1.00');
    expect(res.body.error.message).toContain('₹0.50');
    expect(await h.count('refunds WHERE intent_id = $1', [id])).toBe(0);
    expect(await h.refundApprovals()).toBe(approvalsBefore);
    expect(await h.refundEvents()).toBe(eventsBefore);
    expect(await gatewayRefunds(id)).toEqual([]);
    // Idempotent like every write: the same key and body replays the same refusal.
    const again = await h.refund(id, { amount_paise: 50 }, key);
    expect(again.status).toBe(400);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.error.code).toBe('refund_below_minimum');
    expect(again.body.error.message).toBe(res.body.error.message);
    expect(await h.count('refunds WHERE intent_id = $1', [id])).toBe(0);
  });

  it('accepts exactly the minimum (₹1.00): approved, it is refunded at the gateway', async () => {
    const { id } = await settled(40_000);
    expect(await h.intent(id)).toMatchObject({
      refundable_paise: 40_000,
      refund_minimum_paise: 100,
      refund_maximum_paise: null,
      not_refundable_reason: null,
    });
    const res = await h.refund(id, { amount_paise: 100 });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('pending_approval');
    await h.approve(res.body.approval_id as string);
    expect(
      await h.one('SELECT status FROM refunds WHERE id = $1', [res.body.id as string]),
    ).toEqual({ status: 'succeeded' });
    expect(await gatewayRefunds(id)).toEqual([{ amount: 100, status: 'processed' }]);
    expect(await h.intent(id)).toMatchObject({
      amount_refunded_paise: 100,
      refundable_paise: 39_900,
    });
  });

  it('a partial refund leaving 50 paise: the intent and the receipt page show the remainder as not refundable on this rail, and why; asking it is refused', async () => {
    const { id, receiptId } = await settled(40_000);
    const part = await h.refund(id, { amount_paise: 39_950 });
    expect(part.status).toBe(201);
    await h.approve(part.body.approval_id as string);
    expect(await gatewayRefunds(id)).toEqual([{ amount: 39_950, status: 'processed' }]);

    const shown = await h.intent(id);
    expect(shown).toMatchObject({
      status: 'settled',
      amount_paise: 40_000,
      amount_refunded_paise: 39_950,
      refundable_paise: 0,
      refund_minimum_paise: 100,
    });
    expect(shown.not_refundable_reason).toBe(
      'The ₹0.50 left of this payment is less than the smallest refund the payment gateway makes (₹1.00), so it cannot be refunded on this rail.',
    );
    // The list shows it the same way.
    const list = await request(app.t.url)
      .get('/v1/pay/intents?side=seller&limit=100')
      .set(bearer(ws.seller.credential))
      .expect(200);
    expect((list.body.data as { id: string }[]).find((i) => i.id === id)).toMatchObject({
      refundable_paise: 0,
      not_refundable_reason: shown.not_refundable_reason,
    });

    // The person's receipt page says it in words.
    const session = await signIn(app.t, ws.email, ws.password);
    const page = await request(app.t.url)
      .get(`/app/receipts/${receiptId}`)
      .set('Cookie', session.cookie)
      .expect(200);
    expect(page.text).toContain('Not refundable');
    expect(page.text).toContain('less than the smallest refund the payment gateway makes (₹1.00)');

    // Asking for what is left (no amount) is refused the same way, before anything is stored.
    const rest = await h.refund(id, {});
    expect(rest.status).toBe(400);
    expect(rest.body.error.code).toBe('refund_below_minimum');
    expect(rest.body.error.message).toBe(shown.not_refundable_reason);
    expect(await h.count('refunds WHERE intent_id = $1', [id])).toBe(1);
  });

  it('refuses more than what is left with refund_exceeds_amount naming the rupees left', async () => {
    const { id } = await settled(40_000);
    const approvalsBefore = await h.refundApprovals();
    const res = await h.refund(id, { amount_paise: 40_001 });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'refund_exceeds_amount',
      param: '$.amount_paise',
    });
    expect(res.body.error.message).toContain('₹400.00');
    expect(await h.count('refunds WHERE intent_id = $1', [id])).toBe(0);
    expect(await h.refundApprovals()).toBe(approvalsBefore);
  });

  it('the MCP tool issue_refund is refused the same way, naming amount_paise, with nothing stored', async () => {
    const { id } = await settled(40_000);
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.t.url}/mcp`), {
        requestInit: { headers: bearer(ws.seller.credential) },
      }),
    );
    try {
      const result = (await client.callTool({
        name: 'issue_refund',
        arguments: { intent_id: id, amount_paise: 50, idempotency_key: randomUUID() },
      })) as CallToolResult;
      expect(result.isError).toBe(true);
      const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
      expect(text).toMatch(/^amount_paise: /);
      expect(text).toContain('₹1.00');
      expect(text).toContain('(code: refund_below_minimum)');
    } finally {
      await client.close();
    }
    expect(await h.count('refunds WHERE intent_id = $1', [id])).toBe(0);
    expect(await h.count('mcp_refund_requests WHERE refund_id IS NULL', [])).toBe(0);
  });
});

describe('refund limits on the sandbox rail (any whole number of paise)', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let mandateId: string;
  const h = helpers(() => ({ t, ws }));

  beforeAll(async () => {
    t = await startApp();
    ws = await seedWorkspace(t);
    mandateId = await createMandate(t, { workspaceId: ws.workspaceId, agentId: ws.buyer.id });
  });
  afterAll(() => t.close());

  async function settled(amountPaise: number): Promise<string> {
    const paid = await payFreeFormQuote(t, {
      seller: ws.seller,
      buyer: ws.buyer,
      mandateId,
      amountPaise,
    });
    expect(paid.intent.status).toBe('settled');
    return paid.intent.id;
  }

  it('states its limits on the intent: minimum 1 paise, no maximum, everything left refundable', async () => {
    const id = await settled(10_000);
    expect(await h.intent(id)).toMatchObject({
      refundable_paise: 10_000,
      refund_minimum_paise: 1,
      refund_maximum_paise: null,
      not_refundable_reason: null,
    });
  });

  it('accepts 1 paise and then exactly what is left, refuses 1 paise more than what is left', async () => {
    const id = await settled(10_000);
    const smallest = await h.refund(id, { amount_paise: 1 });
    expect(smallest.status).toBe(201);
    await h.approve(smallest.body.approval_id as string);
    expect(await h.intent(id)).toMatchObject({
      amount_refunded_paise: 1,
      refundable_paise: 9_999,
      not_refundable_reason: null,
    });

    const over = await h.refund(id, { amount_paise: 10_000 });
    expect(over.status).toBe(400);
    expect(over.body.error.code).toBe('refund_exceeds_amount');
    expect(over.body.error.message).toContain('₹99.99');

    const rest = await h.refund(id, { amount_paise: 9_999 });
    expect(rest.status).toBe(201);
    // Waiting for approval counts: nothing is refundable meanwhile, and the intent says why.
    const waiting = await h.intent(id);
    expect(waiting).toMatchObject({ refundable_paise: 0 });
    expect(waiting.not_refundable_reason).toMatch(/^Nothing is left to refund/);
    expect(await h.count('refunds WHERE intent_id = $1', [id])).toBe(2);
  });

  it('a payment not settled shows nothing refundable, with why', async () => {
    // …51 paise: the sandbox bank declines (insufficient_funds).
    const paid = await payFreeFormQuote(t, {
      seller: ws.seller,
      buyer: ws.buyer,
      mandateId,
      amountPaise: 10_051,
    });
    expect(paid.intent.status).toBe('failed');
    const shown = await h.intent(paid.intent.id);
    expect(shown).toMatchObject({ refundable_paise: 0, refund_minimum_paise: 1 });
    expect(shown.not_refundable_reason).toBe(
      'Only settled payments can be refunded; this one is failed.',
    );
  });
});
