import request from 'supertest';

import { csrfFieldOf, signIn } from '../factories/app-session.factory';
import { bearer, payFreeFormQuote } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { startApp, TestApp } from '../support/app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

async function waitFor<T>(fn: () => Promise<T | null | undefined | false>, ms = 8000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) {
      return v;
    }
    if (Date.now() > until) {
      throw new Error('timed out waiting');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('approvals inbox (person approvals in the app)', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let mandateId: string;

  beforeAll(async () => {
    t = await startApp({ approvalTtlSeconds: 3600 });
    ws = await seedWorkspace(t);
    mandateId = await createMandate(t, { workspaceId: ws.workspaceId, agentId: ws.buyer.id });
  });
  afterAll(() => t.close());

  const intentRow = async (id: string) =>
    (
      await t.db.query(
        `SELECT status, receipt_id, decline_code FROM payment_intents WHERE id = $1`,
        [id],
      )
    )[0] as {
      status: string;
      receipt_id: string | null;
      decline_code: string | null;
    };

  async function pendingPayment(amountPaise = 250_000) {
    const paid = await payFreeFormQuote(t, {
      seller: ws.seller,
      buyer: ws.buyer,
      mandateId,
      amountPaise,
    });
    expect(paid.intent.status).toBe('requires_approval');
    const [approval] = await t.db.query(`SELECT id, status FROM approvals WHERE subject_id = $1`, [
      paid.intent.id,
    ]);
    expect(approval.status).toBe('pending');
    return { intentId: paid.intent.id, approvalId: approval.id as string };
  }

  it('lists a pending payment approval for the signed-in person', async () => {
    const { approvalId } = await pendingPayment();
    const s = await signIn(t, ws.email, ws.password);
    const page = await request(t.url).get('/app/approvals').set('Cookie', s.cookie).expect(200);
    expect(page.text).toContain(approvalId);
    expect(page.text).toContain('₹2,500.00');
    expect(page.headers['cache-control']).toContain('no-store');
  });

  it('settles the payment when the person approves through the form', async () => {
    const { intentId, approvalId } = await pendingPayment();
    const s = await signIn(t, ws.email, ws.password);
    const page = await request(t.url).get('/app/approvals').set('Cookie', s.cookie).expect(200);
    // Above ₹2,000 the first post only leads to the confirmation step; nothing is decided.
    const unconfirmed = await request(t.url)
      .post(`/app/approvals/${approvalId}/approve`)
      .set('Cookie', s.cookie)
      .type('form')
      .send({ _csrf: csrfFieldOf(page.text) });
    expect(unconfirmed.status).toBe(303);
    expect(unconfirmed.headers.location).toBe(
      `/app/approvals/${approvalId}/confirm?decision=approve`,
    );
    expect((await intentRow(intentId)).status).toBe('requires_approval');
    const res = await request(t.url)
      .post(`/app/approvals/${approvalId}/approve`)
      .set('Cookie', s.cookie)
      .type('form')
      .send({ _csrf: csrfFieldOf(page.text), confirm: 'yes' });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`/app/approvals/${approvalId}`);
    const intent = await intentRow(intentId);
    expect(intent.status).toBe('settled');
    expect(intent.receipt_id).toMatch(/^rcp_/);
    const [approval] = await t.db.query(`SELECT status, decided_by FROM approvals WHERE id = $1`, [
      approvalId,
    ]);
    expect(approval).toEqual({ status: 'approved', decided_by: ws.personId });
    const debits = await t.db.query(
      `SELECT count(*)::int AS n FROM rail_transfers WHERE intent_id = $1 AND direction = 'debit'`,
      [intentId],
    );
    expect(debits[0].n).toBe(1);
    const events = await t.db.query(`SELECT type FROM outbox_events WHERE subject_id = $1`, [
      intentId,
    ]);
    expect(events).toEqual([{ type: 'intent.settled' }]);
    // A second, different decision on the same approval changes nothing and shows the recorded
    // outcome with a notice (issue 40), not an error page.
    const again = await request(t.url)
      .post(`/app/approvals/${approvalId}/deny`)
      .set('Cookie', s.cookie)
      .type('form')
      .send({ _csrf: csrfFieldOf(page.text), confirm: 'yes' });
    expect(again.status).toBe(303);
    expect(again.headers.location).toBe(`/app/approvals/${approvalId}?notice=already_decided`);
    expect((await intentRow(intentId)).status).toBe('settled');
  });

  it('declines the payment when the person denies', async () => {
    const { intentId, approvalId } = await pendingPayment();
    const s = await signIn(t, ws.email, ws.password);
    const page = await request(t.url).get('/app/approvals').set('Cookie', s.cookie).expect(200);
    await request(t.url)
      .post(`/app/approvals/${approvalId}/deny`)
      .set('Cookie', s.cookie)
      .type('form')
      .send({ _csrf: csrfFieldOf(page.text), confirm: 'yes' })
      .expect(303);
    const intent = await intentRow(intentId);
    expect(intent).toMatchObject({
      status: 'declined',
      decline_code: 'approval_denied',
      receipt_id: null,
    });
    const debits = await t.db.query(
      `SELECT count(*)::int AS n FROM rail_transfers WHERE intent_id = $1`,
      [intentId],
    );
    expect(debits[0].n).toBe(0);
  });

  it('refuses a form without the CSRF token and changes nothing', async () => {
    const { intentId, approvalId } = await pendingPayment();
    const s = await signIn(t, ws.email, ws.password);
    const res = await request(t.url)
      .post(`/app/approvals/${approvalId}/approve`)
      .set('Cookie', s.cookie)
      .type('form')
      .send({});
    expect(res.status).toBe(403);
    expect((await intentRow(intentId)).status).toBe('requires_approval');
  });

  it('cannot be approved with any bearer credential', async () => {
    const { intentId, approvalId } = await pendingPayment();
    for (const secret of [
      ws.apiKey,
      ws.buyer.credential,
      ws.seller.credential,
      ws.buyerKey,
      ws.merchantKey,
    ]) {
      const res = await request(t.url)
        .post(`/app/approvals/${approvalId}/approve`)
        .set(bearer(secret))
        .type('form')
        .send({});
      expect([401, 403]).toContain(res.status);
    }
    expect((await intentRow(intentId)).status).toBe('requires_approval');
  });

  it("hides another workspace's approvals (404)", async () => {
    const { approvalId } = await pendingPayment();
    const other = await seedWorkspace(t);
    const s = await signIn(t, other.email, other.password);
    const page = await request(t.url).get('/app/approvals').set('Cookie', s.cookie).expect(200);
    expect(page.text).not.toContain(approvalId);
    const res = await request(t.url)
      .post(`/app/approvals/${approvalId}/approve`)
      .set('Cookie', s.cookie)
      .type('form')
      .send({ _csrf: csrfFieldOf(page.text) });
    expect(res.status).toBe(404);
  });
});

describe('approval timeout (Bull delayed job)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({ approvalTtlSeconds: 1 });
  });
  afterAll(() => t.close());

  it('expires an unanswered approval and declines the payment', async () => {
    const ws = await seedWorkspace(t);
    const mandateId = await createMandate(t, { workspaceId: ws.workspaceId, agentId: ws.buyer.id });
    const paid = await payFreeFormQuote(t, {
      seller: ws.seller,
      buyer: ws.buyer,
      mandateId,
      amountPaise: 300_000,
    });
    expect(paid.intent.status).toBe('requires_approval');
    const intent = await waitFor(async () => {
      const [row] = await t.db.query(
        `SELECT status, decline_code FROM payment_intents WHERE id = $1`,
        [paid.intent.id],
      );
      return row.status === 'declined' ? row : null;
    });
    expect(intent.decline_code).toBe('approval_expired');
    const [approval] = await t.db.query(
      `SELECT status, decided_by FROM approvals WHERE subject_id = $1`,
      [paid.intent.id],
    );
    expect(approval).toEqual({ status: 'expired', decided_by: null });
    const quote = await request(t.url)
      .get(`/v1/pay/quotes/${paid.quote.id as string}`)
      .set(bearer(ws.buyer.credential))
      .expect(200);
    expect(quote.body.status).toBe('open');
  });
});

describe('approval expiry sweep (database safety net)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({ approvalTtlSeconds: 3600 });
  });
  afterAll(() => t.close());

  it('expires an overdue approval even when its delayed job never fires', async () => {
    const ws = await seedWorkspace(t);
    const mandateId = await createMandate(t, { workspaceId: ws.workspaceId, agentId: ws.buyer.id });
    const paid = await payFreeFormQuote(t, {
      seller: ws.seller,
      buyer: ws.buyer,
      mandateId,
      amountPaise: 300_000,
    });
    expect(paid.intent.status).toBe('requires_approval');
    // The Bull job is an hour away in real time; only the sweep can act on the moved clock.
    t.clock.advance(2 * 3600_000);
    const intent = await waitFor(async () => {
      const [row] = await t.db.query(
        `SELECT status, decline_code FROM payment_intents WHERE id = $1`,
        [paid.intent.id],
      );
      return row.status === 'declined' ? row : null;
    }, 15000);
    expect(intent.decline_code).toBe('approval_expired');
  });
});
