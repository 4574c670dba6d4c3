import { randomUUID } from 'node:crypto';

import { verifyChain } from '../../src/chains/verify-chain';
import { csrfFieldOf, signIn } from '../factories/app-session.factory';
import { mandateDelegateBody } from '../factories/payment-fixtures';
import { startApp, TestApp } from '../support/app';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';
import request from '../support/ucp-contract';
import { PlatformHost, platformProfile, startPlatformHost } from '../support/ucp-platform';

/**
 * One checkout, two doors (docs/ucp.md, docs/acp.md): an ACP platform and a UCP platform buy the
 * same offer from the same seller, each paying with a one-time token delegated on the same kind of
 * UPI mandate, and each purchase ends the same way: a settled intent, a signed receipt that
 * verifies offline against the same JWKS, and the same order events in the outbox.
 */
describe('an ACP platform and a UCP platform buy the same offer', () => {
  let t: TestApp;
  let host: PlatformHost;
  let seller: SeededWorkspace;
  let buyer: SeededWorkspace;

  beforeAll(async () => {
    t = await startApp();
    host = await startPlatformHost({ '/platform': platformProfile() });
    seller = await seedWorkspace(t);
    buyer = await seedWorkspace(t);
    await request(t.url)
      .put(`/v1/pay/agents/${seller.seller.id}/listing`)
      .set('Authorization', `Bearer ${seller.seller.credential}`)
      .send({
        listed: true,
        offers: [
          { sku: 'sku_tea_1kg', name: 'Assam tea 1 kg', unit_paise: 45_000, category: 'food.tea' },
        ],
      })
      .expect(200);
  });
  afterAll(async () => {
    await host.close();
    await t.close();
  });

  /** A standing mandate of the buyer, authorised by its person in the app. */
  async function activeMandate(): Promise<string> {
    const mandate = await request(t.url)
      .post('/v1/pay/mandates')
      .set('Authorization', `Bearer ${buyer.buyer.credential}`)
      .send({
        per_payment_cap_paise: 1_000_000,
        rail: 'upi_reserve_pay',
        valid_until: new Date(Date.now() + 30 * 86400_000).toISOString(),
      })
      .expect(201);
    const path = `/app/mandates/${mandate.body.id}/authorize`;
    const s = await signIn(t, buyer.email, buyer.password);
    const page = await request(t.url).get(path).set('Cookie', s.cookie).expect(200);
    await request(t.url)
      .post(path)
      .set('Cookie', s.cookie)
      .type('form')
      .send({ _csrf: csrfFieldOf(page.text) })
      .expect(303);
    return mandate.body.id as string;
  }

  /** The one-time token both doors take, minted on ACP's delegate_payment (docs/acp.md §7). */
  async function delegate(sessionId: string, mandateId: string): Promise<string> {
    const res = await request(t.url)
      .post('/acp/agentic_commerce/delegate_payment')
      .set(acpHeaders(buyer.buyerKey, randomUUID()))
      .send(
        mandateDelegateBody({
          mandateId,
          sessionId,
          merchantId: seller.seller.id,
          maxAmountPaise: 90_000,
          now: new Date(),
        }),
      )
      .expect(201);
    return res.body.id as string;
  }

  async function buyThroughAcp(mandateId: string): Promise<string> {
    const created = await request(t.url)
      .post('/acp/checkout_sessions')
      .set(acpHeaders(seller.merchantKey, randomUUID()))
      .send({ line_items: [{ id: 'sku_tea_1kg', quantity: 2 }], currency: 'inr', capabilities: {} })
      .expect(201);
    const token = await delegate(created.body.id as string, mandateId);
    const done = await request(t.url)
      .post(`/acp/checkout_sessions/${created.body.id}/complete`)
      .set(acpHeaders(seller.merchantKey, randomUUID()))
      .send({
        payment_data: {
          handler_id: 'svc_upi_mandate',
          instrument: { type: 'svc_mandate', credential: { type: 'svc_delegated_token', token } },
        },
      })
      .expect(200);
    expect(done.body.status).toBe('completed');
    return created.body.id as string;
  }

  async function buyThroughUcp(mandateId: string): Promise<string> {
    const headers = () => ({
      Authorization: `Bearer ${seller.merchantKey}`,
      'UCP-Agent': host.agent('/platform'),
      'Idempotency-Key': randomUUID(),
    });
    const created = await request(t.url)
      .post('/ucp/checkout-sessions')
      .set(headers())
      .send({ line_items: [{ item: { id: 'sku_tea_1kg' }, quantity: 2 }] })
      .expect(201);
    const token = await delegate(created.body.id as string, mandateId);
    const done = await request(t.url)
      .post(`/ucp/checkout-sessions/${created.body.id}/complete`)
      .set(headers())
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
      })
      .expect(200);
    expect(done.body.status).toBe('completed');
    return created.body.id as string;
  }

  /** What a purchase left behind, protocol aside. */
  async function outcomeOf(sessionId: string) {
    const [row] = await t.db.query<
      {
        status: string;
        amount: number;
        seller_agent_id: string;
        buyer_agent_id: string;
        mandate_kind: string;
        receipt_id: string;
        order_id: string;
      }[]
    >(
      `SELECT i.status, i.amount_paise::int AS amount, i.seller_agent_id, i.buyer_agent_id,
              m.kind AS mandate_kind, i.receipt_id, s.order_id
         FROM checkout_sessions s
         JOIN payment_intents i ON i.id = s.intent_id
         JOIN mandates m ON m.id = i.mandate_id
        WHERE s.id = $1`,
      [sessionId],
    );
    const events = await t.db.query<{ type: string }[]>(
      `SELECT type FROM outbox_events
        WHERE subject_id = $1 OR subject_id LIKE $1 || ':%' ORDER BY type`,
      [row.order_id],
    );
    const receipt = await request(t.url)
      .get(`/v1/pay/receipts/${row.receipt_id}`)
      .set('Authorization', `Bearer ${seller.seller.credential}`)
      .expect(200);
    return { row, events: events.map((e) => e.type), receipt: receipt.body };
  }

  it('each ends on a settled intent, a signed receipt of the same kind and the same order events', async () => {
    const mandateId = await activeMandate();
    const viaAcp = await outcomeOf(await buyThroughAcp(mandateId));
    const viaUcp = await outcomeOf(await buyThroughUcp(mandateId));

    for (const o of [viaAcp, viaUcp]) {
      expect(o.row).toMatchObject({
        status: 'settled',
        amount: 90_000,
        seller_agent_id: seller.seller.id,
        buyer_agent_id: buyer.buyer.id,
      });
      expect(o.row.receipt_id).toMatch(/^rcp_/);
      expect(o.events).toEqual(['order_create', 'order_update']);
    }
    expect(viaUcp.row.mandate_kind).toBe(viaAcp.row.mandate_kind);

    const jwks = (await request(t.url).get('/.well-known/jwks.json').expect(200)).body;
    const [acpEntry] = viaAcp.receipt.entries;
    const [ucpEntry] = viaUcp.receipt.entries;
    expect(await verifyChain(viaAcp.receipt.entries, jwks)).toMatchObject({ valid: true });
    expect(await verifyChain(viaUcp.receipt.entries, jwks)).toMatchObject({ valid: true });
    // The same receipt, field for field, but for what differs between two purchases.
    expect(Object.keys(ucpEntry.payload).sort()).toEqual(Object.keys(acpEntry.payload).sort());
    expect(ucpEntry.payload).toMatchObject({
      type: acpEntry.payload.type,
      amount_paise: acpEntry.payload.amount_paise,
      seller: acpEntry.payload.seller,
      buyer: acpEntry.payload.buyer,
    });
  });
});
