import { randomUUID } from 'node:crypto';

import request from 'supertest';

import { ApprovalsService } from '../../src/approvals/approvals.service';
import { ChainService } from '../../src/chains/chain.service';
import { bearer, payFreeFormQuote } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { startApp, TestApp } from '../support/app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * Refunds: the seller agent asks, only a person in the seller's workspace approves, and the
 * amount refunded (pending included) never exceeds what was paid, even under concurrency.
 */
describe('RefundsService (HTTP)', () => {
  let t: TestApp;
  /** The seller's workspace (its person approves refunds). */
  let ws: SeededWorkspace;
  /** The buyer lives in another workspace, so approvals must go to the seller's. */
  let buyerWs: SeededWorkspace;
  let stranger: SeededWorkspace;
  let mandateId: string;

  beforeAll(async () => {
    t = await startApp();
    ws = await seedWorkspace(t);
    buyerWs = await seedWorkspace(t);
    stranger = await seedWorkspace(t);
    mandateId = await createMandate(t, {
      workspaceId: buyerWs.workspaceId,
      agentId: buyerWs.buyer.id,
    });
  });
  afterAll(() => t.close());
  afterEach(() => t.clock.reset());

  async function settledIntent(amountPaise: number) {
    const res = await payFreeFormQuote(t, {
      seller: ws.seller,
      buyer: buyerWs.buyer,
      mandateId,
      amountPaise,
    });
    expect(res.intent.status).toBe('settled');
    return res.intent;
  }

  const refund = (
    intentId: string,
    body: Record<string, unknown>,
    credential = ws.seller.credential,
    key = `idem-${randomUUID()}`,
  ) =>
    request(t.url)
      .post(`/v1/pay/intents/${intentId}/refunds`)
      .set({ ...bearer(credential), 'Idempotency-Key': key })
      .send(body);

  async function count(sql: string, params: unknown[]): Promise<number> {
    const [{ n }] = await t.db.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM ${sql}`,
      params,
    );
    return n;
  }

  async function refundRow(id: string) {
    const [row] = await t.db.query<{ status: string; approval_id: string; amount_paise: string }[]>(
      'SELECT status, approval_id, amount_paise FROM refunds WHERE id = $1',
      [id],
    );
    return row;
  }

  const approve = (approvalId: string, decision: 'approved' | 'denied' = 'approved') =>
    t.get(ApprovalsService).decide(ws.workspaceId, approvalId, ws.personId, decision);

  it("asks a partial refund that waits for a person in the seller's workspace", async () => {
    const intent = await settledIntent(10_000);
    const res = await refund(intent.id, { amount_paise: 3_000, reason: 'One item was missing' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^rf_/),
      object: 'refund',
      intent_id: intent.id,
      status: 'pending_approval',
      amount_paise: 3_000,
      currency: 'INR',
      reason: 'One item was missing',
      seller_agent_id: ws.seller.id,
      buyer_agent_id: buyerWs.buyer.id,
      approval_id: expect.stringMatching(/^apr_/),
      rail_reference: null,
      failure_code: null,
      failure_reason: null,
      created_at: expect.any(String),
      decided_at: null,
      succeeded_at: null,
    });
    const [approval] = await t.db.query<
      {
        kind: string;
        workspace_id: string;
        subject_id: string;
        amount_paise: string;
        status: string;
        summary: string;
      }[]
    >(
      'SELECT kind, workspace_id, subject_id, amount_paise, status, summary FROM approvals WHERE id = $1',
      [res.body.approval_id],
    );
    expect(approval).toEqual({
      kind: 'refund',
      workspace_id: ws.workspaceId,
      subject_id: res.body.id,
      amount_paise: '3000',
      status: 'pending',
      summary: expect.stringContaining('₹30.00'),
    });
    expect(
      await count(
        "outbox_events WHERE type = 'refund.requested' AND subject_id = $1 AND agent_id = $2",
        [res.body.id, ws.seller.id],
      ),
    ).toBe(1);
    expect(await count('rail_transfers WHERE refund_id = $1', [res.body.id])).toBe(0);
    t.clock.advance(3600_000);
    const later = await request(t.url)
      .get(`/v1/pay/refunds/${res.body.id}`)
      .set(bearer(ws.seller.credential));
    expect(later.body.status).toBe('pending_approval');
    const [row] = await t.db.query<{ amount_refunded_paise: string }[]>(
      'SELECT amount_refunded_paise FROM payment_intents WHERE id = $1',
      [intent.id],
    );
    expect(row.amount_refunded_paise).toBe('0');
  });

  it('allows 30% then 70%, then refuses one paise more (pending refunds count)', async () => {
    const intent = await settledIntent(10_000);
    expect((await refund(intent.id, { amount_paise: 3_000 })).status).toBe(201);
    expect((await refund(intent.id, { amount_paise: 7_000 })).status).toBe(201);
    const over = await refund(intent.id, { amount_paise: 1 });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatchObject({
      code: 'refund_exceeds_amount',
      param: '$.amount_paise',
    });
    const nothingLeft = await refund(intent.id, {});
    expect(nothingLeft.status).toBe(400);
    expect(nothingLeft.body.error.code).toBe('refund_exceeds_amount');
    expect(await count('refunds WHERE intent_id = $1', [intent.id])).toBe(2);
  });

  it('defaults to the remaining refundable amount, and a denied refund frees its amount again', async () => {
    const intent = await settledIntent(8_000);
    const part = await refund(intent.id, { amount_paise: 2_500 });
    const rest = await refund(intent.id, {});
    expect(rest.status).toBe(201);
    expect(rest.body.amount_paise).toBe(5_500);
    await approve(rest.body.approval_id, 'denied');
    expect((await refundRow(rest.body.id)).status).toBe('denied');
    expect(
      await count("outbox_events WHERE type = 'refund.denied' AND subject_id = $1", [rest.body.id]),
    ).toBe(1);
    expect(await count('rail_transfers WHERE refund_id = $1', [rest.body.id])).toBe(0);
    const again = await refund(intent.id, {});
    expect(again.status).toBe(201);
    expect(again.body.amount_paise).toBe(5_500);
    expect(part.body.status).toBe('pending_approval');
  });

  it('never over-refunds under concurrent requests', async () => {
    const intent = await settledIntent(10_000);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => refund(intent.id, { amount_paise: 3_000 })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    expect(statuses.filter((s) => s === 400)).toHaveLength(2);
    for (const r of results.filter((x) => x.status === 400)) {
      expect(r.body.error.code).toBe('refund_exceeds_amount');
    }
    const [{ total }] = await t.db.query<{ total: string }[]>(
      "SELECT COALESCE(SUM(amount_paise), 0)::text AS total FROM refunds WHERE intent_id = $1 AND status IN ('pending_approval', 'succeeded')",
      [intent.id],
    );
    expect(Number(total)).toBe(9_000);
    expect(
      await count(
        "approvals WHERE kind = 'refund' AND subject_id IN (SELECT id FROM refunds WHERE intent_id = $1)",
        [intent.id],
      ),
    ).toBe(3);
  });

  it('executes on approval: rail credit, amount_refunded, a second receipt entry that verifies, refund.succeeded', async () => {
    const intent = await settledIntent(10_000);
    const asked = await refund(intent.id, { amount_paise: 4_000, reason: 'Late delivery' });
    await approve(asked.body.approval_id);

    const res = await request(t.url)
      .get(`/v1/pay/refunds/${asked.body.id}`)
      .set(bearer(buyerWs.buyer.credential));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'succeeded',
      rail_reference: expect.stringMatching(/^SBXR/),
      decided_at: expect.any(String),
      succeeded_at: expect.any(String),
    });
    const credits = await t.db.query<
      { direction: string; amount_paise: string; status: string; intent_id: string }[]
    >(
      'SELECT direction, amount_paise, status, intent_id FROM rail_transfers WHERE refund_id = $1',
      [asked.body.id],
    );
    expect(credits).toEqual([
      { direction: 'credit', amount_paise: '4000', status: 'succeeded', intent_id: intent.id },
    ]);
    const [row] = await t.db.query<{ amount_refunded_paise: string; decided_by: string }[]>(
      'SELECT i.amount_refunded_paise, r.decided_by FROM payment_intents i JOIN refunds r ON r.intent_id = i.id WHERE r.id = $1',
      [asked.body.id],
    );
    expect(row).toEqual({ amount_refunded_paise: '4000', decided_by: ws.personId });
    expect(
      await count(
        "outbox_events WHERE type = 'refund.succeeded' AND subject_id = $1 AND agent_id = $2",
        [asked.body.id, ws.seller.id],
      ),
    ).toBe(1);

    const detail = await request(t.url)
      .get(`/v1/pay/intents/${intent.id}`)
      .set(bearer(buyerWs.buyer.credential));
    expect(detail.body).toMatchObject({
      amount_refunded_paise: 4_000,
      refunds: { data: [expect.objectContaining({ id: asked.body.id, status: 'succeeded' })] },
    });
    expect(detail.body.receipt.entries).toHaveLength(2);
    expect(detail.body.receipt.entries[1]).toMatchObject({
      seq: 2,
      prev_hash: detail.body.receipt.entries[0].hash,
      payload: {
        type: 'refund.succeeded',
        refund_id: asked.body.id,
        intent_id: intent.id,
        amount_paise: 4_000,
        amount_refunded_paise: 4_000,
        reason: 'Late delivery',
      },
    });
    expect(await t.get(ChainService).verify(intent.receipt_id!)).toEqual({
      valid: true,
      length: 2,
      first_bad_seq: null,
      reason: null,
    });

    // What is left after a succeeded refund is still bounded.
    const over = await refund(intent.id, { amount_paise: 6_001 });
    expect(over.status).toBe(400);
    const rest = await refund(intent.id, {});
    expect(rest.body.amount_paise).toBe(6_000);
    await approve(rest.body.approval_id);
    const [full] = await t.db.query<{ amount_refunded_paise: string }[]>(
      'SELECT amount_refunded_paise FROM payment_intents WHERE id = $1',
      [intent.id],
    );
    expect(full.amount_refunded_paise).toBe('10000');
    expect(await t.get(ChainService).verify(intent.receipt_id!)).toMatchObject({
      valid: true,
      length: 3,
    });
  });

  it('expires when nobody answers in time', async () => {
    const intent = await settledIntent(5_000);
    const asked = await refund(intent.id, { amount_paise: 1_000 });
    t.clock.advance(t.config.approvalTtlSeconds * 1000 + 1000);
    expect(await t.get(ApprovalsService).expire(asked.body.approval_id)).toBe('expired');
    expect((await refundRow(asked.body.id)).status).toBe('expired');
    expect(
      await count("outbox_events WHERE type = 'refund.expired' AND subject_id = $1", [
        asked.body.id,
      ]),
    ).toBe(1);
  });

  it('cannot be approved with any credential over HTTP', async () => {
    const intent = await settledIntent(5_000);
    const asked = await refund(intent.id, { amount_paise: 1_000 });
    const approvalId = asked.body.approval_id as string;
    const refundId = asked.body.id as string;
    const paths = [
      `/v1/pay/refunds/${refundId}/approve`,
      `/v1/pay/refunds/${refundId}/approval`,
      `/v1/pay/refunds/${refundId}/confirm`,
      `/v1/pay/intents/${intent.id}/refunds/${refundId}/approve`,
      `/v1/pay/approvals/${approvalId}/approve`,
      `/v1/pay/approvals/${approvalId}/decide`,
      `/v1/approvals/${approvalId}/approve`,
      `/v1/approvals/${approvalId}`,
      `/app/approvals/${approvalId}/approve`,
      `/app/approvals/${approvalId}/decide`,
      `/app/approvals/${approvalId}`,
    ];
    for (const credential of [ws.seller.credential, ws.apiKey, ws.merchantKey]) {
      for (const path of paths) {
        const res = await request(t.url)
          .post(path)
          .set({ ...bearer(credential), 'Idempotency-Key': `idem-${randomUUID()}` })
          .send({ decision: 'approved', _csrf: 'x' });
        expect([path, res.status < 200 || res.status >= 300]).toEqual([path, true]);
      }
    }
    expect((await refundRow(refundId)).status).toBe('pending_approval');
    const [approval] = await t.db.query<{ status: string }[]>(
      'SELECT status FROM approvals WHERE id = $1',
      [approvalId],
    );
    expect(approval.status).toBe('pending');
    expect(await count('rail_transfers WHERE refund_id = $1', [refundId])).toBe(0);
  });

  it("is asked only by the intent's seller agent, for settled payments", async () => {
    const intent = await settledIntent(5_000);
    const byBuyer = await refund(intent.id, { amount_paise: 100 }, buyerWs.buyer.credential);
    expect(byBuyer.status).toBe(403);
    const byStranger = await refund(intent.id, { amount_paise: 100 }, stranger.seller.credential);
    expect(byStranger.status).toBe(404);
    expect(byStranger.body.error.code).toBe('intent_not_found');
    const byApiKey = await refund(intent.id, { amount_paise: 100 }, ws.apiKey);
    expect(byApiKey.status).toBe(403);
    const failed = await payFreeFormQuote(t, {
      seller: ws.seller,
      buyer: buyerWs.buyer,
      mandateId,
      amountPaise: 2_051,
    });
    expect(failed.intent.status).toBe('failed');
    const notSettled = await refund(failed.intent.id, {});
    expect(notSettled.status).toBe(409);
    expect(notSettled.body.error.code).toBe('intent_not_refundable');
    for (const [body, param] of [
      [{ amount_paise: 0 }, '$.amount_paise'],
      [{ amount_paise: 12.5 }, '$.amount_paise'],
      [{ amount_paise: '100' }, '$.amount_paise'],
      [{ reason: 'x'.repeat(201) }, '$.reason'],
      [{ status: 'succeeded' }, '$.status'],
    ] as const) {
      const res = await refund(intent.id, body);
      expect(res.status).toBe(400);
      expect(res.body.error.param).toBe(param);
    }
    expect(await count('refunds WHERE intent_id IN ($1, $2)', [intent.id, failed.intent.id])).toBe(
      0,
    );
  });

  it('lists refunds for either party and hides them from everyone else', async () => {
    const intent = await settledIntent(5_000);
    const a = (await refund(intent.id, { amount_paise: 1_000 })).body;
    const b = (await refund(intent.id, { amount_paise: 2_000 })).body;
    for (const credential of [ws.seller.credential, buyerWs.buyer.credential]) {
      const res = await request(t.url)
        .get(`/v1/pay/intents/${intent.id}/refunds`)
        .set(bearer(credential));
      expect(res.status).toBe(200);
      expect(res.body.data.map((r: { id: string }) => r.id)).toEqual([b.id, a.id]);
    }
    const page = await request(t.url)
      .get(`/v1/pay/intents/${intent.id}/refunds`)
      .query({ limit: 1 })
      .set(bearer(ws.seller.credential));
    expect(page.body).toMatchObject({ has_more: true, data: [{ id: b.id }] });
    const next = await request(t.url)
      .get(`/v1/pay/intents/${intent.id}/refunds`)
      .query({ limit: 1, starting_after: page.body.next_cursor })
      .set(bearer(ws.seller.credential));
    expect(next.body).toMatchObject({ has_more: false, data: [{ id: a.id }] });
    const strangerList = await request(t.url)
      .get(`/v1/pay/intents/${intent.id}/refunds`)
      .set(bearer(stranger.buyer.credential));
    expect(strangerList.status).toBe(404);
    const strangerGet = await request(t.url)
      .get(`/v1/pay/refunds/${a.id}`)
      .set(bearer(stranger.seller.credential));
    expect(strangerGet.status).toBe(404);
    expect(strangerGet.body.error.code).toBe('refund_not_found');
  });

  it('replays a retried refund request with the same Idempotency-Key', async () => {
    const intent = await settledIntent(5_000);
    const key = `idem-${randomUUID()}`;
    const first = await refund(intent.id, { amount_paise: 1_000 }, ws.seller.credential, key);
    const again = await refund(intent.id, { amount_paise: 1_000 }, ws.seller.credential, key);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expect(await count('refunds WHERE intent_id = $1', [intent.id])).toBe(1);
  });
});
