import { randomUUID } from 'node:crypto';

import request from 'supertest';

import { WaitingPayments } from '../../src/payments/waiting-payments.service';
import { csrfFieldOf, signIn } from '../factories/app-session.factory';
import { bearer, payFreeFormQuote } from '../factories/intent.factory';
import { insertMandate, insertToken } from '../factories/payment-fixtures';
import { startApp, TestApp } from '../support/app';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * The money rules around a payment that waits for a person (docs/architecture.md, "Payment
 * pipeline"): the threshold boundary, waiting payments in the daily cap, the whole rule set
 * re-checked at approval, revocation and expiry declining waiting payments, and an expired
 * approval that stays expired.
 */

interface Row {
  status: string;
  decline_code: string | null;
  receipt_id: string | null;
}

async function intentRow(t: TestApp, id: string): Promise<Row> {
  const [row] = await t.db.query<Row[]>(
    `SELECT status, decline_code, receipt_id FROM payment_intents WHERE id = $1`,
    [id],
  );
  return row;
}

async function approvalOf(
  t: TestApp,
  intentId: string,
): Promise<{ id: string; status: string; note: string | null }> {
  const [row] = await t.db.query<{ id: string; status: string; note: string | null }[]>(
    `SELECT id, status, note FROM approvals WHERE subject_id = $1`,
    [intentId],
  );
  return row;
}

/** Nothing moved for this intent: no rail transfer, no receipt, no webhook event. */
async function expectNothingMoved(t: TestApp, intentId: string): Promise<void> {
  const [{ transfers }] = await t.db.query<{ transfers: number }[]>(
    `SELECT count(*)::int AS transfers FROM rail_transfers WHERE intent_id = $1`,
    [intentId],
  );
  const [{ events }] = await t.db.query<{ events: number }[]>(
    `SELECT count(*)::int AS events FROM outbox_events WHERE subject_id = $1`,
    [intentId],
  );
  expect({ transfers, events, receipt: (await intentRow(t, intentId)).receipt_id }).toEqual({
    transfers: 0,
    events: 0,
    receipt: null,
  });
}

async function decide(
  t: TestApp,
  ws: SeededWorkspace,
  approvalId: string,
  decision: 'approve' | 'deny',
) {
  const s = await signIn(t, ws.email, ws.password);
  const page = await request(t.url).get('/app/approvals').set('Cookie', s.cookie).expect(200);
  const res = await request(t.url)
    .post(`/app/approvals/${approvalId}/${decision}`)
    .set('Cookie', s.cookie)
    .type('form')
    // Confirmed, as the confirmation step's form sends it (amounts here are above ₹2,000).
    .send({ _csrf: csrfFieldOf(page.text), confirm: 'yes' });
  return { res, cookie: s.cookie };
}

async function consentPost(t: TestApp, ws: SeededWorkspace, path: string) {
  const s = await signIn(t, ws.email, ws.password);
  const page = await request(t.url).get('/app/consent').set('Cookie', s.cookie).expect(200);
  // Confirmed, as the revocation's confirmation page sends it.
  return request(t.url)
    .post(path)
    .set('Cookie', s.cookie)
    .type('form')
    .send({ _csrf: csrfFieldOf(page.text), confirm: 'yes' });
}

describe('payments waiting for a person', () => {
  let t: TestApp;

  beforeAll(async () => {
    // No sweeps: a test that revokes a mandate behind the pipeline's back must reach the approval first.
    t = await startApp({ approvalTtlSeconds: 3600, runWorkers: false });
  });
  afterAll(() => t.close());

  async function world(cap?: { validUntil?: Date }) {
    const ws = await seedWorkspace(t);
    const mandateId = await insertMandate(t, ws, cap);
    return { ws, mandateId };
  }

  describe('the approval threshold (₹2,000)', () => {
    it('settles exactly ₹2,000 at once and asks a person for ₹2,000.01', async () => {
      const { ws, mandateId } = await world();
      const at = await payFreeFormQuote(t, {
        seller: ws.seller,
        buyer: ws.buyer,
        mandateId,
        amountPaise: 200_000,
      });
      expect(at.intent.status).toBe('settled');
      expect(at.intent.receipt_id).toMatch(/^rcp_/);
      const above = await payFreeFormQuote(t, {
        seller: ws.seller,
        buyer: ws.buyer,
        mandateId,
        amountPaise: 200_001,
      });
      expect(above.intent.status).toBe('requires_approval');
      expect((await approvalOf(t, above.intent.id)).status).toBe('pending');
      await expectNothingMoved(t, above.intent.id);
    });
  });

  describe('the daily cap', () => {
    afterEach(() => {
      t.config.dailyCapPaise = 5_000_000;
    });

    it('counts a payment waiting for approval towards the cap', async () => {
      t.config.dailyCapPaise = 500_000;
      const { ws, mandateId } = await world();
      const waiting = await payFreeFormQuote(t, {
        seller: ws.seller,
        buyer: ws.buyer,
        mandateId,
        amountPaise: 300_000,
      });
      expect(waiting.intent.status).toBe('requires_approval');
      // 300,000 waiting + 200,001 > 500,000: refused; 300,000 + 200,000 = 500,000: allowed.
      const over = await payFreeFormQuote(t, {
        seller: ws.seller,
        buyer: ws.buyer,
        mandateId,
        amountPaise: 200_001,
      });
      expect(over.intent.status).toBe('declined');
      expect((await intentRow(t, over.intent.id)).decline_code).toBe('daily_cap_exceeded');
      const exact = await payFreeFormQuote(t, {
        seller: ws.seller,
        buyer: ws.buyer,
        mandateId,
        amountPaise: 200_000,
      });
      expect(exact.intent.status).toBe('settled');
    });

    it('re-checks the cap when the person approves', async () => {
      const { ws, mandateId } = await world();
      const waiting = await payFreeFormQuote(t, {
        seller: ws.seller,
        buyer: ws.buyer,
        mandateId,
        amountPaise: 300_000,
      });
      const settled = await payFreeFormQuote(t, {
        seller: ws.seller,
        buyer: ws.buyer,
        mandateId,
        amountPaise: 150_000,
      });
      expect(settled.intent.status).toBe('settled');
      // The operator lowers the cap while the payment waits: 150,000 settled + 300,000 > 400,000.
      t.config.dailyCapPaise = 400_000;
      const approval = await approvalOf(t, waiting.intent.id);
      const { res } = await decide(t, ws, approval.id, 'approve');
      expect(res.status).toBe(303);
      expect(await intentRow(t, waiting.intent.id)).toMatchObject({
        status: 'declined',
        decline_code: 'daily_cap_exceeded',
      });
      await expectNothingMoved(t, waiting.intent.id);
    });
  });

  describe('the rules run again at approval', () => {
    it('declines, with the reason on the person page, a payment whose mandate was revoked while it waited', async () => {
      const { ws, mandateId } = await world();
      const paid = await payFreeFormQuote(t, {
        seller: ws.seller,
        buyer: ws.buyer,
        mandateId,
        amountPaise: 250_000,
      });
      expect(paid.intent.status).toBe('requires_approval');
      // Revoked behind the pipeline's back (the way a path that forgets to decline would leave it).
      await t.db.query(`UPDATE mandates SET status = 'revoked', revoked_at = now() WHERE id = $1`, [
        mandateId,
      ]);
      const approval = await approvalOf(t, paid.intent.id);
      const { res, cookie } = await decide(t, ws, approval.id, 'approve');
      expect(res.status).toBe(303);
      expect(await intentRow(t, paid.intent.id)).toMatchObject({
        status: 'declined',
        decline_code: 'mandate_not_active',
      });
      await expectNothingMoved(t, paid.intent.id);
      const after = await approvalOf(t, paid.intent.id);
      expect(after.status).toBe('withdrawn');
      expect(after.note).toContain(`Mandate ${mandateId} is revoked`);
      const page = await request(t.url)
        .get(String(res.headers.location))
        .set('Cookie', cookie)
        .expect(200);
      expect(page.text).toContain('can no longer go ahead');
      const quote = await request(t.url)
        .get(`/v1/pay/quotes/${paid.quote.id as string}`)
        .set(bearer(ws.buyer.credential))
        .expect(200);
      expect(quote.body.status).toBe('open');
    });

    it('declines a payment whose mandate passed its valid_until while it waited', async () => {
      const { ws, mandateId } = await world({ validUntil: new Date(Date.now() + 3600_000) });
      const paid = await payFreeFormQuote(t, {
        seller: ws.seller,
        buyer: ws.buyer,
        mandateId,
        amountPaise: 250_000,
      });
      await t.db.query(
        `UPDATE mandates SET valid_until = now() - interval '1 second' WHERE id = $1`,
        [mandateId],
      );
      const approval = await approvalOf(t, paid.intent.id);
      // The sweep may get there first; either way the payment ends declined and nothing moves.
      const { res } = await decide(t, ws, approval.id, 'approve');
      expect([303, 409]).toContain(res.status);
      expect(await intentRow(t, paid.intent.id)).toMatchObject({
        status: 'declined',
        decline_code: 'mandate_expired',
      });
      await expectNothingMoved(t, paid.intent.id);
    });

    it('still settles an approved payment whose rules hold', async () => {
      const { ws, mandateId } = await world();
      const paid = await payFreeFormQuote(t, {
        seller: ws.seller,
        buyer: ws.buyer,
        mandateId,
        amountPaise: 250_000,
      });
      const approval = await approvalOf(t, paid.intent.id);
      const { res } = await decide(t, ws, approval.id, 'approve');
      expect(res.status).toBe(303);
      expect((await intentRow(t, paid.intent.id)).status).toBe('settled');
      expect((await approvalOf(t, paid.intent.id)).status).toBe('approved');
    });
  });

  describe('ending a mandate or token declines what waits on it', () => {
    it('revoking the mandate in the consent centre declines its waiting payments and withdraws their approvals', async () => {
      const { ws, mandateId } = await world();
      const a = await payFreeFormQuote(t, {
        seller: ws.seller,
        buyer: ws.buyer,
        mandateId,
        amountPaise: 250_000,
      });
      const b = await payFreeFormQuote(t, {
        seller: ws.seller,
        buyer: ws.buyer,
        mandateId,
        amountPaise: 310_000,
      });
      const res = await consentPost(t, ws, `/app/consent/mandates/${mandateId}/revoke`);
      expect(res.status).toBe(303);
      for (const paid of [a, b]) {
        expect(await intentRow(t, paid.intent.id)).toMatchObject({
          status: 'declined',
          decline_code: 'mandate_not_active',
        });
        const approval = await approvalOf(t, paid.intent.id);
        expect(approval.status).toBe('withdrawn');
        expect(approval.note).toContain('was revoked');
        await expectNothingMoved(t, paid.intent.id);
      }
      // The person's inbox shows why, and approving the withdrawn approval is refused.
      const approval = await approvalOf(t, a.intent.id);
      // (docs/app.md: an answer after the outcome shows the recorded outcome with a notice.)
      const { res: late, cookie } = await decide(t, ws, approval.id, 'approve');
      expect(late.status).toBe(303);
      expect(late.headers.location).toBe(`/app/approvals/${approval.id}?notice=already_decided`);
      const outcome = await request(t.url).get(late.headers.location).set('Cookie', cookie);
      expect(outcome.status).toBe(200);
      expect(outcome.text).toContain(`Mandate ${mandateId} was revoked`);
      const inbox = await request(t.url).get('/app/approvals').set('Cookie', cookie).expect(200);
      expect(inbox.text).toContain(`Mandate ${mandateId} was revoked`);
      expect((await intentRow(t, a.intent.id)).status).toBe('declined');
    });

    it('a mandate reaching valid_until declines its waiting payments (sweep)', async () => {
      const { ws, mandateId } = await world();
      const paid = await payFreeFormQuote(t, {
        seller: ws.seller,
        buyer: ws.buyer,
        mandateId,
        amountPaise: 250_000,
      });
      await t.db.query(
        `UPDATE mandates SET valid_until = now() - interval '1 second' WHERE id = $1`,
        [mandateId],
      );
      expect(await t.get(WaitingPayments).declineWaitingOnEnded()).toBeGreaterThanOrEqual(1);
      expect(await intentRow(t, paid.intent.id)).toMatchObject({
        status: 'declined',
        decline_code: 'mandate_expired',
      });
      const approval = await approvalOf(t, paid.intent.id);
      expect(approval.status).toBe('withdrawn');
      expect(approval.note).toContain('outside its validity window');
      await expectNothingMoved(t, paid.intent.id);
    });

    it('revoking the token a waiting checkout payment was spent with declines it; the session is payable again', async () => {
      const { ws, mandateId } = await world();
      await request(t.url)
        .put(`/v1/pay/agents/${ws.seller.id}/listing`)
        .set(bearer(ws.seller.credential))
        .send({
          listed: true,
          offers: [
            { sku: 'hamper', name: 'Tea hamper', unit_paise: 350_000, category: 'grocery.tea' },
          ],
        })
        .expect(200);
      const created = await request(t.url)
        .post('/acp/checkout_sessions')
        .set(acpHeaders(ws.merchantKey, randomUUID()))
        .send({ line_items: [{ id: 'hamper', quantity: 1 }], currency: 'inr', capabilities: {} })
        .expect(201);
      const sessionId = created.body.id as string;
      const tokenId = await insertToken(t, ws, { sessionId, mandateId });
      const completed = await request(t.url)
        .post(`/acp/checkout_sessions/${sessionId}/complete`)
        .set(acpHeaders(ws.merchantKey, randomUUID()))
        .send({
          payment_data: {
            handler_id: 'svc_upi_mandate',
            instrument: {
              type: 'svc_mandate',
              credential: { type: 'svc_delegated_token', token: tokenId },
            },
          },
        })
        .expect(200);
      expect(completed.body.status).toBe('pending_approval');
      const [{ id: intentId }] = await t.db.query<{ id: string }[]>(
        `SELECT id FROM payment_intents WHERE token_id = $1`,
        [tokenId],
      );

      const s = await signIn(t, ws.email, ws.password);
      const consent = await request(t.url).get('/app/consent').set('Cookie', s.cookie).expect(200);
      expect(consent.text).toContain(tokenId);
      expect(consent.text).toContain(intentId);
      const res = await consentPost(t, ws, `/app/consent/tokens/${tokenId}/revoke`);
      expect(res.status).toBe(303);

      expect(await intentRow(t, intentId)).toMatchObject({
        status: 'declined',
        decline_code: 'token_revoked',
      });
      expect((await approvalOf(t, intentId)).status).toBe('withdrawn');
      await expectNothingMoved(t, intentId);
      const [{ status }] = await t.db.query<{ status: string }[]>(
        `SELECT status FROM delegated_tokens WHERE id = $1`,
        [tokenId],
      );
      expect(status).toBe('revoked');
      const session = await request(t.url)
        .get(`/acp/checkout_sessions/${sessionId}`)
        .set(acpHeaders(ws.merchantKey))
        .expect(200);
      expect(session.body.status).toBe('ready_for_payment');
      expect(session.body.messages[0]).toMatchObject({ code: 'payment_declined' });
    });

    it('revoking a spent token whose payment already settled changes nothing', async () => {
      const { ws, mandateId } = await world();
      const settled = await payFreeFormQuote(t, {
        seller: ws.seller,
        buyer: ws.buyer,
        mandateId,
        amountPaise: 10_000,
      });
      expect(settled.intent.status).toBe('settled');
      const sessionRow = await t.db.query<{ id: string }[]>(
        `INSERT INTO checkout_sessions (id, workspace_id, seller_agent_id, protocol_key_id, status, currency, line_items, messages, created_at, updated_at, expires_at)
         VALUES ('cs_' || md5(random()::text), $1, $2, $3, 'completed', 'INR', '[]', '[]', now(), now(), now() + interval '1 hour') RETURNING id`,
        [ws.workspaceId, ws.seller.id, ws.merchantKeyId],
      );
      const tokenId = await insertToken(t, ws, {
        sessionId: sessionRow[0].id,
        mandateId,
        status: 'used',
      });
      const res = await consentPost(t, ws, `/app/consent/tokens/${tokenId}/revoke`);
      expect(res.status).toBe(303);
      const [{ status }] = await t.db.query<{ status: string }[]>(
        `SELECT status FROM delegated_tokens WHERE id = $1`,
        [tokenId],
      );
      expect(status).toBe('used');
      expect((await intentRow(t, settled.intent.id)).status).toBe('settled');
    });
  });
});

describe('an expired approval approved afterwards', () => {
  let t: TestApp;

  // No workers: neither the Bull timeout nor the sweep may expire it before the person answers.
  beforeAll(async () => {
    t = await startApp({ approvalTtlSeconds: 60, runWorkers: false });
  });
  afterAll(() => t.close());

  it('is refused with approval_expired, stays expired, and settles nothing', async () => {
    const ws = await seedWorkspace(t);
    const mandateId = await insertMandate(t, ws);
    const paid = await payFreeFormQuote(t, {
      seller: ws.seller,
      buyer: ws.buyer,
      mandateId,
      amountPaise: 250_000,
    });
    const approval = await approvalOf(t, paid.intent.id);
    t.clock.advance(61_000);
    const { res } = await decide(t, ws, approval.id, 'approve');
    expect(res.status).toBe(409);
    expect(res.text).toContain('approval_expired');
    expect((await approvalOf(t, paid.intent.id)).status).toBe('expired');
    expect(await intentRow(t, paid.intent.id)).toMatchObject({
      status: 'declined',
      decline_code: 'approval_expired',
    });
    await expectNothingMoved(t, paid.intent.id);
    const quote = await request(t.url)
      .get(`/v1/pay/quotes/${paid.quote.id as string}`)
      .set(bearer(ws.buyer.credential))
      .expect(200);
    expect(quote.body.status).toBe('open');
  });
});

/**
 * The daily cap reads a counter row per buyer agent and IST day (buyer_daily_spend, kept by a
 * trigger on payment_intents: migration 1763700002200), not a sum over the day's intents.
 */
describe('the daily spend counter', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({ approvalTtlSeconds: 3600, runWorkers: false });
  });
  afterAll(() => t.close());
  afterEach(() => {
    t.clock.reset();
    t.config.dailyCapPaise = 5_000_000;
  });

  it('starts afresh at 00:00 IST: a payment at 23:59:55 counts on its day, one at 00:00:01 on the next', async () => {
    t.config.dailyCapPaise = 300_000;
    const ws = await seedWorkspace(t);
    const mandateId = await insertMandate(t, ws);
    // 18:30 UTC is 00:00 IST; move the clock to 5 s before the next one.
    const now = Date.now();
    const midnight = Math.ceil((now + 330 * 60_000) / 86_400_000) * 86_400_000 - 330 * 60_000;
    t.clock.advance(midnight - 5_000 - now);
    const pay = (amountPaise: number) =>
      payFreeFormQuote(t, { seller: ws.seller, buyer: ws.buyer, mandateId, amountPaise });
    expect((await pay(200_000)).intent.status).toBe('settled');
    expect((await pay(100_000)).intent.status).toBe('settled'); // exactly the cap
    const over = await pay(1);
    expect(over.intent.status).toBe('declined');
    expect((await intentRow(t, over.intent.id)).decline_code).toBe('daily_cap_exceeded');
    t.clock.advance(6_000);
    expect((await pay(200_000)).intent.status).toBe('settled');
    const counters = await t.db.query<{ day: string; committed: number }[]>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, committed_paise::int AS committed
         FROM buyer_daily_spend WHERE buyer_agent_id = $1 ORDER BY day`,
      [ws.buyer.id],
    );
    const istDay = (ms: number) => new Date(ms + 330 * 60_000).toISOString().slice(0, 10);
    expect(counters).toEqual([
      { day: istDay(midnight - 1), committed: 300_000 },
      { day: istDay(midnight), committed: 200_000 },
    ]);
  });

  it('frees what a declined or denied payment held, and counts a waiting one until then', async () => {
    t.config.dailyCapPaise = 500_000;
    const ws = await seedWorkspace(t);
    const mandateId = await insertMandate(t, ws);
    const committed = async () => {
      const [row] = await t.db.query<{ committed: number }[]>(
        `SELECT COALESCE(SUM(committed_paise), 0)::int AS committed FROM buyer_daily_spend WHERE buyer_agent_id = $1`,
        [ws.buyer.id],
      );
      return row.committed;
    };
    const waiting = await payFreeFormQuote(t, {
      seller: ws.seller,
      buyer: ws.buyer,
      mandateId,
      amountPaise: 400_000,
    });
    expect(waiting.intent.status).toBe('requires_approval');
    expect(await committed()).toBe(400_000);
    const approval = await approvalOf(t, waiting.intent.id);
    expect((await decide(t, ws, approval.id, 'deny')).res.status).toBe(303);
    expect(await committed()).toBe(0);
    // The whole cap is free again.
    const paid = await payFreeFormQuote(t, {
      seller: ws.seller,
      buyer: ws.buyer,
      mandateId,
      amountPaise: 200_000,
    });
    expect(paid.intent.status).toBe('settled');
    expect(await committed()).toBe(200_000);
  });

  it('equals the sum of each buyer’s committed intents per IST day, over everything this file did', async () => {
    const mismatches = await t.db.query<unknown[]>(
      `WITH sums AS (
         SELECT buyer_agent_id, ist_day(created_at) AS day, SUM(amount_paise) AS total
           FROM payment_intents WHERE status IN ('requires_approval', 'processing', 'settled')
          GROUP BY 1, 2)
       SELECT * FROM sums FULL JOIN buyer_daily_spend c USING (buyer_agent_id, day)
        WHERE COALESCE(sums.total, 0) <> COALESCE(c.committed_paise, 0)`,
    );
    expect(mismatches).toEqual([]);
    const [{ intents }] = await t.db.query<{ intents: number }[]>(
      `SELECT count(*)::int AS intents FROM payment_intents`,
    );
    expect(intents).toBeGreaterThan(10);
  });
});
