import request from 'supertest';

import { bearer, payFreeFormQuote } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { startApp, TestApp } from '../support/app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * GET /v1/pay/intents and /v1/pay/intents/{id}: each agent sees its own payments from its side,
 * newest first with cursor pagination, and nothing of another tenant.
 */
describe('IntentsService (HTTP)', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let other: SeededWorkspace;
  let mandateId: string;
  let otherMandateId: string;
  /** ws.buyer → ws.seller, oldest first. */
  const paid: string[] = [];
  /** other.buyer → ws.seller (cross-tenant payment). */
  let crossIntent: string;
  /** other.buyer → other.seller: must never show up for ws's agents. */
  let foreignIntent: string;
  let declinedIntent: string;

  beforeAll(async () => {
    t = await startApp();
    ws = await seedWorkspace(t);
    other = await seedWorkspace(t);
    mandateId = await createMandate(t, { workspaceId: ws.workspaceId, agentId: ws.buyer.id });
    otherMandateId = await createMandate(t, {
      workspaceId: other.workspaceId,
      agentId: other.buyer.id,
    });
    for (const amount of [1_000, 2_000, 3_000, 4_000]) {
      const res = await payFreeFormQuote(t, {
        seller: ws.seller,
        buyer: ws.buyer,
        mandateId,
        amountPaise: amount,
      });
      expect(res.intent.status).toBe('settled');
      paid.push(res.intent.id);
    }
    declinedIntent = (
      await payFreeFormQuote(t, {
        seller: ws.seller,
        buyer: ws.buyer,
        mandateId,
        amountPaise: 1_051,
      })
    ).intent.id;
    crossIntent = (
      await payFreeFormQuote(t, {
        seller: ws.seller,
        buyer: other.buyer,
        mandateId: otherMandateId,
        amountPaise: 5_000,
      })
    ).intent.id;
    foreignIntent = (
      await payFreeFormQuote(t, {
        seller: other.seller,
        buyer: other.buyer,
        mandateId: otherMandateId,
        amountPaise: 6_000,
      })
    ).intent.id;
  });
  afterAll(() => t.close());

  const list = (credential: string, query: Record<string, string | number>) =>
    request(t.url).get('/v1/pay/intents').query(query).set(bearer(credential));

  it('lists the seller side newest first, two at a time, without overlap', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await list(ws.seller.credential, {
        side: 'seller',
        limit: 2,
        ...(cursor ? { starting_after: cursor } : {}),
      });
      expect(res.status).toBe(200);
      expect(res.body.object).toBe('list');
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      for (const i of res.body.data) {
        expect(i).toMatchObject({
          object: 'payment_intent',
          side: 'seller',
          seller_agent_id: ws.seller.id,
          currency: 'INR',
        });
      }
      seen.push(...res.body.data.map((i: { id: string }) => i.id));
      cursor = res.body.has_more ? res.body.next_cursor : null;
      if (res.body.has_more) {
        expect(res.body.next_cursor).toEqual(expect.any(String));
      } else {
        expect(res.body.next_cursor).toBeNull();
      }
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([crossIntent, declinedIntent, ...[...paid].reverse()]);
    expect(seen).not.toContain(foreignIntent);
  });

  it("shows every intent field from the caller's side", async () => {
    const res = await list(ws.seller.credential, { side: 'seller', limit: 1, status: 'settled' });
    expect(res.body.data).toEqual([
      {
        id: crossIntent,
        object: 'payment_intent',
        side: 'seller',
        status: 'settled',
        amount_paise: 5_000,
        amount_refunded_paise: 0,
        refundable_paise: 5_000,
        refund_minimum_paise: 1,
        refund_maximum_paise: null,
        not_refundable_reason: null,
        currency: 'INR',
        buyer_agent_id: other.buyer.id,
        seller_agent_id: ws.seller.id,
        source: { kind: 'quote', id: expect.stringMatching(/^qt_/) },
        description: expect.stringContaining('Test item'),
        mandate_id: otherMandateId,
        token_id: null,
        decline_code: null,
        decline_reason: null,
        rail: 'sandbox',
        rail_reference: expect.stringMatching(/^SBX/),
        receipt_id: expect.stringMatching(/^rcp_/),
        created_at: expect.any(String),
        settled_at: expect.any(String),
      },
    ]);
  });

  it('filters by status', async () => {
    const failed = await list(ws.seller.credential, { side: 'seller', status: 'failed' });
    expect(failed.body.data.map((i: { id: string }) => i.id)).toEqual([declinedIntent]);
    const settled = await list(ws.seller.credential, {
      side: 'seller',
      status: 'settled',
      limit: 100,
    });
    expect(settled.body.data).toHaveLength(5);
  });

  it('lists the buyer side of the same payments for the buyer', async () => {
    const res = await list(ws.buyer.credential, { side: 'buyer', limit: 100 });
    expect(res.body.data.map((i: { id: string }) => i.id)).toEqual([
      declinedIntent,
      ...[...paid].reverse(),
    ]);
    expect(res.body.data.every((i: { side: string }) => i.side === 'buyer')).toBe(true);
    const asSeller = await list(ws.buyer.credential, { side: 'seller' });
    expect(asSeller.body.data).toEqual([]);
  });

  it('leaks nothing across tenants', async () => {
    const res = await list(other.seller.credential, { side: 'seller', limit: 100 });
    expect(res.body.data.map((i: { id: string }) => i.id)).toEqual([foreignIntent]);
    const otherBuyer = await list(other.buyer.credential, { side: 'buyer', limit: 100 });
    expect(otherBuyer.body.data.map((i: { id: string }) => i.id)).toEqual([
      foreignIntent,
      crossIntent,
    ]);
    const read = await request(t.url)
      .get(`/v1/pay/intents/${paid[0]}`)
      .set(bearer(other.seller.credential));
    expect(read.status).toBe(404);
    expect(read.body.error.code).toBe('intent_not_found');
    const readForeign = await request(t.url)
      .get(`/v1/pay/intents/${foreignIntent}`)
      .set(bearer(ws.seller.credential));
    expect(readForeign.status).toBe(404);
  });

  it('gives either party the intent with its receipt and refunds', async () => {
    const seller = await request(t.url)
      .get(`/v1/pay/intents/${crossIntent}`)
      .set(bearer(ws.seller.credential));
    expect(seller.status).toBe(200);
    expect(seller.body).toMatchObject({
      id: crossIntent,
      side: 'seller',
      status: 'settled',
      refunds: { object: 'list', data: [], has_more: false, next_cursor: null },
      receipt: {
        id: seller.body.receipt_id,
        object: 'receipt',
        intent_id: crossIntent,
        entries: [
          expect.objectContaining({
            seq: 1,
            payload: expect.objectContaining({ type: 'payment.settled', intent_id: crossIntent }),
          }),
        ],
      },
    });
    const buyer = await request(t.url)
      .get(`/v1/pay/intents/${crossIntent}`)
      .set(bearer(other.buyer.credential));
    expect(buyer.status).toBe(200);
    expect(buyer.body).toMatchObject({ side: 'buyer', receipt: { id: seller.body.receipt_id } });
    const failed = await request(t.url)
      .get(`/v1/pay/intents/${declinedIntent}`)
      .set(bearer(ws.buyer.credential));
    expect(failed.body).toMatchObject({
      status: 'failed',
      decline_code: 'insufficient_funds',
      receipt: null,
      receipt_id: null,
    });
  });

  it('requires a side and refuses bad queries and API keys', async () => {
    const noSide = await list(ws.seller.credential, {});
    expect(noSide.status).toBe(400);
    expect(noSide.body.error.param).toMatch(/side/);
    const badStatus = await list(ws.seller.credential, { side: 'seller', status: 'paid' });
    expect(badStatus.status).toBe(400);
    const badLimit = await list(ws.seller.credential, { side: 'seller', limit: 0 });
    expect(badLimit.status).toBe(400);
    const badCursor = await list(ws.seller.credential, {
      side: 'seller',
      starting_after: 'garbage',
    });
    expect(badCursor.status).toBe(400);
    const apiKey = await list(ws.apiKey, { side: 'seller' });
    expect(apiKey.status).toBe(403);
  });
});
