import request from 'supertest';

import { csrfFieldOf, signIn } from '../factories/app-session.factory';
import { payFreeFormQuote } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { startApp, TestApp } from '../support/app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * Issue 40 item 4: a person's decision resubmitted (a double click, back and resend) shows the
 * first decision's outcome page, as the first answer did, and changes nothing; a different
 * decision on an item already decided shows the recorded outcome with a notice, never an error
 * page. Approvals (`/app/approvals/:id/approve|deny`) and mandate authorisation
 * (`/app/mandates/:id/authorize|decline`), over HTTP with a signed-in person and the CSRF field.
 */
describe('a decision resubmitted shows the first decision’s outcome', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let mandateId: string;
  let cookie: string;
  let csrf: string;

  beforeAll(async () => {
    t = await startApp({ approvalTtlSeconds: 3600 });
    ws = await seedWorkspace(t);
    mandateId = await createMandate(t, { workspaceId: ws.workspaceId, agentId: ws.buyer.id });
    const s = await signIn(t, ws.email, ws.password);
    cookie = s.cookie;
    const home = await request(t.url).get('/app/approvals').set('Cookie', cookie).expect(200);
    csrf = csrfFieldOf(home.text);
  });
  afterAll(() => t.close());

  const post = (path: string, form: Record<string, string> = {}) =>
    request(t.url)
      .post(path)
      .set('Cookie', cookie)
      .type('form')
      .send({ _csrf: csrf, ...form });

  const count = async (sql: string, params: unknown[]) =>
    (await t.db.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${sql}`, params))[0].n;

  async function pendingApproval() {
    const paid = await payFreeFormQuote(t, {
      seller: ws.seller,
      buyer: ws.buyer,
      mandateId,
      amountPaise: 250_000,
    });
    expect(paid.intent.status).toBe('requires_approval');
    const [approval] = await t.db.query<{ id: string }[]>(
      `SELECT id FROM approvals WHERE subject_id = $1`,
      [paid.intent.id],
    );
    return { intentId: paid.intent.id, approvalId: approval.id };
  }

  describe('approvals', () => {
    it('approve resent: the same outcome page, one payment; deny afterwards: the outcome with a notice', async () => {
      const { intentId, approvalId } = await pendingApproval();
      const outcome = `/app/approvals/${approvalId}`;
      const first = await post(`${outcome}/approve`, { confirm: 'yes' });
      expect(first.status).toBe(303);
      expect(first.headers.location).toBe(outcome);

      const resent = await post(`${outcome}/approve`, { confirm: 'yes' });
      expect(resent.status).toBe(303);
      expect(resent.headers.location).toBe(outcome);
      // Resent from the confirmation step's first form (no confirm): the outcome too.
      const unconfirmed = await post(`${outcome}/approve`);
      expect(unconfirmed.status).toBe(303);
      expect(unconfirmed.headers.location).toBe(outcome);
      expect(await count(`rail_transfers WHERE intent_id = $1`, [intentId])).toBe(1);
      const page = await request(t.url).get(outcome).set('Cookie', cookie);
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('data-notice="already_decided"');

      const other = await post(`${outcome}/deny`, { confirm: 'yes' });
      expect(other.status).toBe(303);
      expect(other.headers.location).toBe(`${outcome}?notice=already_decided`);
      const shown = await request(t.url).get(other.headers.location).set('Cookie', cookie);
      expect(shown.status).toBe(200);
      expect(shown.text).toContain('data-notice="already_decided"');
      expect(shown.text).toContain('your answer changed nothing');
      const [approval] = await t.db.query<{ status: string }[]>(
        `SELECT status FROM approvals WHERE id = $1`,
        [approvalId],
      );
      expect(approval.status).toBe('approved');
      const [intent] = await t.db.query<{ status: string }[]>(
        `SELECT status FROM payment_intents WHERE id = $1`,
        [intentId],
      );
      expect(intent.status).toBe('settled');
    });

    it('two copies of one answer sent at once: both land on the outcome page, decided once', async () => {
      const { intentId, approvalId } = await pendingApproval();
      const outcome = `/app/approvals/${approvalId}`;
      const [a, b] = await Promise.all([
        post(`${outcome}/deny`, { confirm: 'yes' }).then((r) => r),
        post(`${outcome}/deny`, { confirm: 'yes' }).then((r) => r),
      ]);
      expect([a.status, b.status]).toEqual([303, 303]);
      expect([a.headers.location, b.headers.location]).toEqual([outcome, outcome]);
      expect(
        await count(`audit_events WHERE subject_id = $1 AND action = 'approval.denied'`, [
          approvalId,
        ]),
      ).toBe(1);
      const [intent] = await t.db.query<{ status: string }[]>(
        `SELECT status FROM payment_intents WHERE id = $1`,
        [intentId],
      );
      expect(intent.status).toBe('declined');
    });
  });

  describe('mandate authorisation', () => {
    const createPending = async () => {
      const res = await request(t.url)
        .post('/v1/pay/mandates')
        .set({ Authorization: `Bearer ${ws.apiKey}` })
        .send({
          buyer_agent_id: ws.buyer.id,
          per_payment_cap_paise: 500_000,
          payee_agent_ids: [ws.seller.id],
          valid_until: new Date(t.clock.now().getTime() + 30 * 24 * 3600_000).toISOString(),
          rail: 'upi_reserve_pay',
          description: 'Groceries',
        });
      expect(res.status).toBe(201);
      return res.body.id as string;
    };
    const row = async (id: string) =>
      (
        await t.db.query<{ status: string; authorised_at: Date | null; revoked_at: Date | null }[]>(
          'SELECT status, authorised_at, revoked_at FROM mandates WHERE id = $1',
          [id],
        )
      )[0];

    it('authorise resent: the same page, authorised once; decline afterwards: the outcome with a notice', async () => {
      const id = await createPending();
      const page = `/app/mandates/${id}/authorize`;
      const first = await post(page);
      expect(first.status).toBe(303);
      expect(first.headers.location).toBe(page);
      const authorised = await row(id);
      expect(authorised.status).toBe('active');

      const resent = await post(page);
      expect(resent.status).toBe(303);
      expect(resent.headers.location).toBe(page);
      expect(await row(id)).toEqual(authorised);
      expect(
        await count(`audit_events WHERE subject_id = $1 AND action = 'mandate.authorised'`, [id]),
      ).toBe(1);

      const other = await post(`/app/mandates/${id}/decline`);
      expect(other.status).toBe(303);
      expect(other.headers.location).toBe(`${page}?error=already_decided`);
      expect(await row(id)).toEqual(authorised);
      const shown = await request(t.url).get(other.headers.location).set('Cookie', cookie);
      expect(shown.status).toBe(200);
      expect(shown.text).toContain('id="mandate-already-decided"');
      expect(shown.text).toContain('your answer changed nothing');
      expect(shown.text).toContain('data-status="active"');
    });

    it('decline resent: the same page; authorise afterwards: the outcome with a notice, still revoked', async () => {
      const id = await createPending();
      const page = `/app/mandates/${id}/authorize`;
      const first = await post(`/app/mandates/${id}/decline`);
      expect(first.status).toBe(303);
      expect(first.headers.location).toBe(page);
      const declined = await row(id);
      expect(declined.status).toBe('revoked');

      const resent = await post(`/app/mandates/${id}/decline`);
      expect(resent.status).toBe(303);
      expect(resent.headers.location).toBe(page);
      expect(await row(id)).toEqual(declined);

      const other = await post(page);
      expect(other.status).toBe(303);
      expect(other.headers.location).toBe(`${page}?error=already_decided`);
      expect(await row(id)).toEqual(declined);
    });

    it('two copies of one authorisation sent at once: both land on its page, authorised once', async () => {
      const id = await createPending();
      const page = `/app/mandates/${id}/authorize`;
      const [a, b] = await Promise.all([post(page).then((r) => r), post(page).then((r) => r)]);
      expect([a.status, b.status]).toEqual([303, 303]);
      expect([a.headers.location, b.headers.location]).toEqual([page, page]);
      expect(
        await count(`audit_events WHERE subject_id = $1 AND action = 'mandate.authorised'`, [id]),
      ).toBe(1);
    });
  });
});
