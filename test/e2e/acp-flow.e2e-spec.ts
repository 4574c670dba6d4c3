import { randomUUID } from 'node:crypto';

import request from 'supertest';

import { verifyChain } from '../../src/chains/verify-chain';
import { csrfFieldOf, signIn } from '../factories/app-session.factory';
import { expectValid } from '../support/acp-schema';
import { startApp, TestApp } from '../support/app';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * The whole ACP story over HTTP, with the seller and the buyer in different workspaces:
 * listing → create → update → delegate_payment (no mandate: one-time mandate) → complete (402
 * until the person authorises) → person authorises in the app → complete → get → receipt with the
 * buyer key and with the seller credential → offline verification against the public JWKS.
 */
describe('ACP end to end', () => {
  let t: TestApp;
  let seller: SeededWorkspace;
  let buyer: SeededWorkspace;

  beforeAll(async () => {
    t = await startApp();
    seller = await seedWorkspace(t);
    buyer = await seedWorkspace(t);
    await request(t.url)
      .put(`/v1/pay/agents/${seller.seller.id}/listing`)
      .set('Authorization', `Bearer ${seller.seller.credential}`)
      .send({
        listed: true,
        offers: [
          { sku: 'sku_tea_1kg', name: 'Assam tea 1 kg', unit_paise: 45_000, category: 'food.tea' },
          { sku: 'sku_hamper', name: 'Tea hamper', unit_paise: 350_000, category: 'food.tea' },
        ],
      })
      .expect(200);
  });
  afterAll(() => t.close());

  const acp = (key: string) => acpHeaders(key, randomUUID());

  async function openSession(sku: string): Promise<Record<string, unknown> & { id: string }> {
    const created = await request(t.url)
      .post('/acp/checkout_sessions')
      .set(acp(seller.merchantKey))
      .send({ line_items: [{ id: sku }], currency: 'inr', capabilities: {} })
      .expect(201);
    expectValid('CheckoutSession', created.body);
    expect(created.body.status).toBe('ready_for_payment');
    return created.body;
  }

  async function delegate(sessionId: string, maxAmount: number, mandateId?: string) {
    const res = await request(t.url)
      .post('/acp/agentic_commerce/delegate_payment')
      .set(acp(buyer.buyerKey))
      .send({
        payment_method: { type: 'svc_mandate', ...(mandateId ? { mandate_id: mandateId } : {}) },
        allowance: {
          reason: 'one_time',
          max_amount: maxAmount,
          currency: 'inr',
          checkout_session_id: sessionId,
          merchant_id: seller.seller.id,
          expires_at: new Date(Date.now() + 3600_000).toISOString(),
        },
        risk_signals: [],
        metadata: {},
      });
    expect(res.status).toBe(201);
    return res.body as { id: string; metadata: Record<string, string> };
  }

  const complete = (sessionId: string, token: string) =>
    request(t.url)
      .post(`/acp/checkout_sessions/${sessionId}/complete`)
      .set(acp(seller.merchantKey))
      .send({
        payment_data: {
          handler_id: 'svc_upi_mandate',
          instrument: { type: 'svc_mandate', credential: { type: 'svc_delegated_token', token } },
        },
      });

  async function personPost(
    ws: SeededWorkspace,
    pagePath: string,
    formPath: string,
    fields: Record<string, string> = {},
  ): Promise<number> {
    const s = await signIn(t, ws.email, ws.password);
    const page = await request(t.url).get(pagePath).set('Cookie', s.cookie).expect(200);
    const res = await request(t.url)
      .post(formPath)
      .set('Cookie', s.cookie)
      .type('form')
      .send({ _csrf: csrfFieldOf(page.text), ...fields });
    return res.status;
  }

  async function jwks() {
    return (await request(t.url).get('/.well-known/jwks.json').expect(200)).body;
  }

  it('pays at or below ₹2,000 after the person authorises the one-time mandate, and both sides verify the receipt', async () => {
    const session = await openSession('sku_tea_1kg');
    const updated = await request(t.url)
      .post(`/acp/checkout_sessions/${session.id}`)
      .set(acp(seller.merchantKey))
      .send({ line_items: [{ id: 'sku_tea_1kg', quantity: 2 }] })
      .expect(200);
    expectValid('CheckoutSession', updated.body);
    const total = (updated.body.totals as { type: string; amount: number }[]).at(-1)!;
    expect(total).toMatchObject({ type: 'total', amount: 90_000 });

    const token = await delegate(session.id, 90_000);
    expect(token.id).toMatch(/^vt_[A-Za-z0-9]+$/);
    expect(token.metadata.status).toBe('pending_authorisation');
    const mandateId = token.metadata.mandate_id;

    const early = await complete(session.id, token.id);
    expect(early.status).toBe(402);
    expect(early.body).toMatchObject({ type: 'invalid_request', code: 'requires_buyer_review' });
    expectValid('Error', early.body);

    const authUrl = new URL(token.metadata.authorization_url);
    expect(await personPost(buyer, authUrl.pathname, authUrl.pathname)).toBe(303);
    const [mandate] = await t.db.query(
      `SELECT status, kind, per_payment_cap_paise::int AS cap FROM mandates WHERE id = $1`,
      [mandateId],
    );
    expect(mandate).toEqual({ status: 'active', kind: 'one_time', cap: 90_000 });

    const done = await complete(session.id, token.id);
    expect(done.status).toBe(200);
    expectValid('CheckoutSessionWithOrder', done.body);
    expect(done.body.status).toBe('completed');
    const receiptId = done.body.metadata.svc_receipt_id as string;
    expect(receiptId).toMatch(/^rcp_/);
    expect(done.body.order.checkout_session_id).toBe(session.id);

    const got = await request(t.url)
      .get(`/acp/checkout_sessions/${session.id}`)
      .set(acpHeaders(seller.merchantKey))
      .expect(200);
    expectValid('CheckoutSessionWithOrder', got.body);
    expect(got.body.status).toBe('completed');
    await request(t.url)
      .get(new URL(done.body.order.permalink_url as string).pathname)
      .expect(200);

    const asBuyer = await request(t.url)
      .get(`/acp/receipts/${receiptId}`)
      .set(acpHeaders(buyer.buyerKey))
      .expect(200);
    const asSeller = await request(t.url)
      .get(`/v1/pay/receipts/${receiptId}`)
      .set('Authorization', `Bearer ${seller.seller.credential}`)
      .expect(200);
    expect(asSeller.body.entries).toEqual(asBuyer.body.entries);
    const entry = asBuyer.body.entries[0];
    expect(entry.payload).toMatchObject({
      type: 'payment.settled',
      amount_paise: 90_000,
      token_id: token.id,
      mandate_id: mandateId,
      checkout_session_id: session.id,
      seller: { agent_id: seller.seller.id },
      buyer: { agent_id: buyer.buyer.id },
    });
    const keys = await jwks();
    expect(await verifyChain(asBuyer.body.entries, keys)).toMatchObject({ valid: true, length: 1 });

    // Tampering with the stored receipt is detected by the same offline check.
    await t.db.query(
      `UPDATE chain_entries SET payload = jsonb_set(payload, '{amount_paise}', '9000') WHERE chain_id = $1`,
      [receiptId],
    );
    const tampered = await request(t.url)
      .get(`/acp/receipts/${receiptId}`)
      .set(acpHeaders(buyer.buyerKey))
      .expect(200);
    expect(await verifyChain(tampered.body.entries, keys)).toMatchObject({
      valid: false,
      first_bad_seq: 1,
    });

    // The receipt is private to the two parties.
    const stranger = await seedWorkspace(t);
    await request(t.url)
      .get(`/acp/receipts/${receiptId}`)
      .set(acpHeaders(stranger.buyerKey))
      .expect(404);
  });

  it('asks a person above ₹2,000: pending_approval until approved in the app, then GET shows completed', async () => {
    const mandate = await request(t.url)
      .post('/v1/pay/mandates')
      .set('Authorization', `Bearer ${buyer.buyer.credential}`)
      .send({
        per_payment_cap_paise: 1_000_000,
        rail: 'upi_reserve_pay',
        valid_until: new Date(Date.now() + 30 * 86400_000).toISOString(),
      })
      .expect(201);
    expect(
      await personPost(
        buyer,
        `/app/mandates/${mandate.body.id}/authorize`,
        `/app/mandates/${mandate.body.id}/authorize`,
      ),
    ).toBe(303);

    const session = await openSession('sku_hamper');
    const token = await delegate(session.id, 350_000, mandate.body.id);
    expect(token.metadata.status).toBeUndefined();
    const pending = await complete(session.id, token.id);
    expect(pending.status).toBe(200);
    expectValid('CheckoutSession', pending.body);
    expect(pending.body.status).toBe('pending_approval');
    expect(pending.body.order).toBeUndefined();

    const [approval] = await t.db.query(
      `SELECT a.id, a.workspace_id FROM approvals a JOIN payment_intents i ON i.id = a.subject_id WHERE i.source_id = $1`,
      [session.id],
    );
    expect(approval.workspace_id).toBe(buyer.workspaceId);
    expect(
      await personPost(buyer, '/app/approvals', `/app/approvals/${approval.id}/approve`, {
        confirm: 'yes',
      }),
    ).toBe(303);

    const got = await request(t.url)
      .get(`/acp/checkout_sessions/${session.id}`)
      .set(acpHeaders(seller.merchantKey))
      .expect(200);
    expectValid('CheckoutSessionWithOrder', got.body);
    expect(got.body.status).toBe('completed');
    const receipt = await request(t.url)
      .get(`/acp/receipts/${got.body.metadata.svc_receipt_id as string}`)
      .set(acpHeaders(buyer.buyerKey))
      .expect(200);
    expect(receipt.body.entries[0].payload).toMatchObject({
      checkout_session_id: session.id,
      amount_paise: 350_000,
    });
    expect(await verifyChain(receipt.body.entries, await jwks())).toMatchObject({ valid: true });
  });

  it('a denied approval leaves the session ready_for_payment with payment_declined', async () => {
    const mandate = await request(t.url)
      .post('/v1/pay/mandates')
      .set('Authorization', `Bearer ${buyer.buyer.credential}`)
      .send({
        per_payment_cap_paise: 1_000_000,
        rail: 'upi_otm',
        valid_until: new Date(Date.now() + 86400_000).toISOString(),
      })
      .expect(201);
    await personPost(
      buyer,
      `/app/mandates/${mandate.body.id}/authorize`,
      `/app/mandates/${mandate.body.id}/authorize`,
    );
    const session = await openSession('sku_hamper');
    const token = await delegate(session.id, 350_000, mandate.body.id);
    expect((await complete(session.id, token.id)).body.status).toBe('pending_approval');
    const [approval] = await t.db.query(
      `SELECT a.id FROM approvals a JOIN payment_intents i ON i.id = a.subject_id WHERE i.source_id = $1`,
      [session.id],
    );
    expect(
      await personPost(buyer, '/app/approvals', `/app/approvals/${approval.id}/deny`, {
        confirm: 'yes',
      }),
    ).toBe(303);
    const got = await request(t.url)
      .get(`/acp/checkout_sessions/${session.id}`)
      .set(acpHeaders(seller.merchantKey))
      .expect(200);
    expectValid('CheckoutSession', got.body);
    expect(got.body.status).toBe('ready_for_payment');
    expect(got.body.messages).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'error', code: 'payment_declined' }),
      ]),
    );
    // The token was spent on the declined attempt: a new token is needed.
    expect((await complete(session.id, token.id)).body.code).toBe('token_used');
  });
});
