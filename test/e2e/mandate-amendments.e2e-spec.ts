import { chromium } from 'playwright-core';
import request from 'supertest';

import { verifyChain } from '../../src/chains/verify-chain';
import { MandateAmendmentsService } from '../../src/mandates/mandate-amendments.service';
import { MandatesService } from '../../src/mandates/mandates.service';
import { csrfFieldOf, signIn } from '../factories/app-session.factory';
import { bearer } from '../factories/intent.factory';
import { startApp, TestApp } from '../support/app';
import { chromiumPath } from '../support/browser';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * Amending a mandate needs the person's fresh authorisation (docs/mandates.md "Mandates, approvals and the
 * consent centre"; RBI E-Mandate Framework 2026): the buyer agent asks, the person sees old and
 * new terms side by side and authorises or declines after a confirmation; until then the old
 * terms apply (a seller's charge is checked against the mandate's current columns); the terms
 * and the decision are on the amendments record, the audit log and the mandate's receipt chain.
 */
describe('mandate amendments', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  const DAY = 86_400_000;

  beforeAll(async () => {
    t = await startApp({ runWorkers: false });
    ws = await seedWorkspace(t);
  });
  afterAll(async () => {
    t?.clock.reset();
    await t?.close();
  });

  const one = async <T>(sql: string, params: unknown[] = []): Promise<T> =>
    (await t.db.query<T[]>(sql, params))[0];

  /** An active recurring (as presented) mandate with a ₹20 cap per debit. */
  async function mandate(capPaise = 2_000): Promise<string> {
    const res = await request(t.url)
      .post('/v1/pay/mandates')
      .set(bearer(ws.buyer.credential))
      .send({
        kind: 'recurring',
        recurring: { billing_cycle: 'as_presented' },
        per_payment_cap_paise: capPaise,
        payee_agent_ids: [ws.seller.id],
        valid_until: new Date(t.clock.now().getTime() + 60 * DAY).toISOString(),
        description: 'Tea subscription',
      });
    expect(res.status).toBe(201);
    await t.get(MandatesService).authorise(ws.workspaceId, res.body.id, ws.personId);
    return res.body.id as string;
  }

  const amend = (mandateId: string, body: Record<string, unknown>, key?: string) => {
    const r = request(t.url)
      .post(`/v1/pay/mandates/${mandateId}/amendments`)
      .set(bearer(ws.buyer.credential));
    return (key ? r.set('Idempotency-Key', key) : r).send(body);
  };

  /** A seller's charge: checked against the mandate's cap in force (201, or 400 above it). */
  const charge = (mandateId: string, amountPaise: number) =>
    request(t.url)
      .post(`/v1/pay/mandates/${mandateId}/charges`)
      .set(bearer(ws.seller.credential))
      .send({ amount_paise: amountPaise, description: 'Tea, one month' });

  const capOf = async (mandateId: string) =>
    Number(
      (
        await one<{ cap: string }>(
          `SELECT per_payment_cap_paise::text AS cap FROM mandates WHERE id = $1`,
          [mandateId],
        )
      ).cap,
    );

  const events = async (subjectId: string) =>
    (
      await t.db.query<{ type: string; payload: { data: Record<string, unknown> } }[]>(
        `SELECT type, payload FROM outbox_events WHERE subject_id = $1 ORDER BY created_at, id`,
        [subjectId],
      )
    ).map((e) => e.type);

  /** The person answers on the app page: the first POST shows the confirmation, the second decides. */
  async function answer(mandateId: string, amendmentId: string, verb: 'authorise' | 'decline') {
    const session = await signIn(t, ws.email, ws.password);
    const path = `/app/mandates/${mandateId}/amendments/${amendmentId}`;
    const page = await request(t.url).get(path).set('Cookie', session.cookie);
    expect(page.status).toBe(200);
    const first = await request(t.url)
      .post(`${path}/${verb}`)
      .set('Cookie', session.cookie)
      .type('form')
      .send({ _csrf: csrfFieldOf(page.text) });
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe(`${path}?confirm=${verb}`);
    // Nothing decided before the confirmation.
    expect(
      (
        await one<{ status: string }>(`SELECT status FROM mandate_amendments WHERE id = $1`, [
          amendmentId,
        ])
      ).status,
    ).toBe('pending');
    const confirm = await request(t.url).get(first.headers.location).set('Cookie', session.cookie);
    expect(confirm.text).toContain(
      verb === 'authorise' ? 'Confirm: authorise' : 'Confirm: decline',
    );
    const done = await request(t.url)
      .post(`${path}/${verb}`)
      .set('Cookie', session.cookie)
      .type('form')
      .send({ _csrf: csrfFieldOf(confirm.text), confirm: 'yes' });
    expect(done.status).toBe(303);
    return request(t.url).get(path).set('Cookie', session.cookie);
  }

  it('authorised: the old cap applies while pending, the new one after; terms and decision on the record, audit and a verifiable chain; events', async () => {
    const mandateId = await mandate(2_000);
    const res = await amend(
      mandateId,
      { per_payment_cap_paise: 1_000, reason: 'Cheaper plan' },
      'amend-1',
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: 'mandate_amendment',
      mandate_id: mandateId,
      status: 'pending',
      old_terms: { per_payment_cap_paise: 2_000, payee_agent_ids: [ws.seller.id] },
      new_terms: { per_payment_cap_paise: 1_000, payee_agent_ids: [ws.seller.id] },
      changed: ['per_payment_cap_paise'],
      reason: 'Cheaper plan',
      receipt_chain: { id: mandateId },
    });
    expect(res.body.authorization_url).toMatch(
      new RegExp(`/mandates/${mandateId}/amendments/${res.body.id}$`),
    );
    const amendmentId = res.body.id as string;

    // Pending: the mandate still holds its old cap, and a payment made meanwhile is checked against it.
    expect(await capOf(mandateId)).toBe(2_000);
    expect((await charge(mandateId, 1_500)).status).toBe(201);

    // The person sees old and new side by side, in words.
    const session = await signIn(t, ws.email, ws.password);
    const page = await request(t.url)
      .get(`/app/mandates/${mandateId}/amendments/${amendmentId}`)
      .set('Cookie', session.cookie);
    expect(page.text).toContain('₹20.00');
    expect(page.text).toContain('₹10.00');
    expect(page.text).toContain('Most per debit');
    expect(page.text).toMatch(/class="changed" data-term="per_payment_cap_paise"/);

    const after = await answer(mandateId, amendmentId, 'authorise');
    expect(after.text).toContain('data-status="authorised"');
    expect(await capOf(mandateId)).toBe(1_000);
    const above = await charge(mandateId, 1_500);
    expect(above.status).toBe(400);
    expect(above.body.error.code).toBe('mandate_cap_exceeded');
    expect((await charge(mandateId, 1_000)).status).toBe(201);
    const m = await request(t.url)
      .get(`/v1/pay/mandates/${mandateId}`)
      .set(bearer(ws.buyer.credential));
    expect(m.body.per_payment_cap_paise).toBe(1_000);

    // The record: both terms and the decision.
    const got = await request(t.url)
      .get(`/v1/pay/mandates/${mandateId}/amendments/${amendmentId}`)
      .set(bearer(ws.buyer.credential));
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ status: 'authorised', decision_note: null });
    expect(got.body.decided_at).toEqual(expect.any(String));
    const row = await one<{ decided_by: string; old_terms: unknown; new_terms: unknown }>(
      `SELECT decided_by, old_terms, new_terms FROM mandate_amendments WHERE id = $1`,
      [amendmentId],
    );
    expect(row).toMatchObject({
      decided_by: ws.personId,
      old_terms: { per_payment_cap_paise: 2_000 },
      new_terms: { per_payment_cap_paise: 1_000 },
    });
    const audit = await t.db.query<{ action: string }[]>(
      `SELECT action FROM audit_events WHERE subject_id = $1 AND action LIKE 'mandate.amendment%' ORDER BY created_at`,
      [mandateId],
    );
    expect(audit.map((a) => a.action)).toEqual([
      'mandate.amendment_requested',
      'mandate.amendment_authorised',
    ]);

    // The mandate's receipt chain: request then decision, each with both terms, verifiable offline.
    const entries = got.body.receipt_chain.entries as { payload: Record<string, unknown> }[];
    expect(entries.map((e) => e.payload.type)).toEqual([
      'mandate.amendment_requested',
      'mandate.amendment_authorised',
    ]);
    expect(entries[1].payload).toMatchObject({
      amendment_id: amendmentId,
      old_terms: { per_payment_cap_paise: 2_000 },
      new_terms: { per_payment_cap_paise: 1_000 },
      terms_in_force: { per_payment_cap_paise: 1_000 },
      decided_by: { type: 'person', id: ws.personId },
    });
    const jwks = (await request(t.url).get('/.well-known/jwks.json').expect(200)).body;
    expect(await verifyChain(got.body.receipt_chain.entries, jwks)).toMatchObject({
      valid: true,
      length: 2,
    });

    expect(await events(amendmentId)).toEqual([
      'mandate.amendment_requested',
      'mandate.amendment_authorised',
    ]);
  });

  it('declined: the old terms stay; the decision is recorded and announced', async () => {
    const mandateId = await mandate(2_000);
    const until = new Date(t.clock.now().getTime() + 10 * DAY).toISOString();
    const res = await amend(mandateId, { per_payment_cap_paise: 500, valid_until: until });
    expect(res.status).toBe(201);
    expect(res.body.changed).toEqual(['per_payment_cap_paise', 'valid_until']);
    const after = await answer(mandateId, res.body.id, 'decline');
    expect(after.text).toContain('data-status="declined"');
    expect(await capOf(mandateId)).toBe(2_000);
    expect((await charge(mandateId, 1_500)).status).toBe(201);
    const got = await request(t.url)
      .get(`/v1/pay/mandates/${mandateId}/amendments/${res.body.id}`)
      .set(bearer(ws.buyer.credential));
    expect(got.body.status).toBe('declined');
    expect(
      got.body.receipt_chain.entries.map((e: { payload: { type: string } }) => e.payload.type),
    ).toEqual(['mandate.amendment_requested', 'mandate.amendment_declined']);
    expect(await events(res.body.id)).toEqual([
      'mandate.amendment_requested',
      'mandate.amendment_declined',
    ]);
    // Answered once: a second answer is refused.
    await expect(
      t
        .get(MandateAmendmentsService)
        .decide(ws.workspaceId, mandateId, res.body.id, ws.personId, 'authorise'),
    ).rejects.toMatchObject({ code: 'amendment_not_pending' });
  });

  it('idempotent create, one pending at a time, clear 4xx on bad input', async () => {
    const mandateId = await mandate(2_000);
    const first = await amend(mandateId, { per_payment_cap_paise: 3_000 }, 'same-key');
    expect(first.status).toBe(201);
    const replay = await amend(mandateId, { per_payment_cap_paise: 3_000 }, 'same-key');
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.id).toBe(first.body.id);
    const second = await amend(mandateId, { per_payment_cap_paise: 4_000 }, 'other-key');
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('amendment_pending');
    expect(second.body.error.message).toContain(first.body.id);
    const list = await request(t.url)
      .get(`/v1/pay/mandates/${mandateId}/amendments`)
      .set(bearer(ws.buyer.credential));
    expect(list.body.data.map((a: { id: string }) => a.id)).toEqual([first.body.id]);

    const other = await mandate(2_000);
    const nothing = await amend(other, { per_payment_cap_paise: 2_000 });
    expect(nothing.status).toBe(400);
    expect(nothing.body.error.code).toBe('amendment_changes_nothing');
    const past = await amend(other, {
      valid_until: new Date(t.clock.now().getTime() - DAY).toISOString(),
    });
    expect(past.status).toBe(400);
    expect(past.body.error.param).toBe('$.valid_until');
    const anySeller = await amend(other, { payee_agent_ids: null });
    expect(anySeller.status).toBe(400);
    expect(anySeller.body.error.param).toBe('$.payee_agent_ids');
    const notSeller = await amend(other, { payee_agent_ids: [ws.buyer.id] });
    expect(notSeller.status).toBe(400);
    expect(notSeller.body.error.param).toBe('$.payee_agent_ids[0]');
    const byKey = await request(t.url)
      .post(`/v1/pay/mandates/${other}/amendments`)
      .set(bearer(ws.apiKey))
      .send({ per_payment_cap_paise: 900 });
    expect(byKey.status).toBe(403);
    const bySeller = await request(t.url)
      .post(`/v1/pay/mandates/${other}/amendments`)
      .set(bearer(ws.seller.credential))
      .send({ per_payment_cap_paise: 900 });
    expect(bySeller.status).toBe(403);
    expect(
      (
        await one<{ n: number }>(
          `SELECT count(*)::int AS n FROM mandate_amendments WHERE mandate_id = $1`,
          [other],
        )
      ).n,
    ).toBe(0);
  });

  it('expires unanswered after MANDATE_AMENDMENT_TTL_S; the old terms stay and a late answer is refused', async () => {
    const mandateId = await mandate(2_000);
    const res = await amend(mandateId, { per_payment_cap_paise: 1_200 });
    expect(res.status).toBe(201);
    t.clock.advance(t.config.mandateAmendmentTtlSeconds * 1000 + 1000);
    try {
      await expect(
        t
          .get(MandateAmendmentsService)
          .decide(ws.workspaceId, mandateId, res.body.id, ws.personId, 'authorise'),
      ).rejects.toMatchObject({ code: 'amendment_expired' });
      const row = await one<{ status: string }>(
        `SELECT status FROM mandate_amendments WHERE id = $1`,
        [res.body.id],
      );
      expect(row.status).toBe('expired');
      expect(await capOf(mandateId)).toBe(2_000);
      // A new request is possible once the old one ended.
      expect((await amend(mandateId, { per_payment_cap_paise: 1_100 })).status).toBe(201);
    } finally {
      t.clock.reset();
    }
  });

  it('a mandate paying on a registered gateway AutoPay token refuses a higher cap or later end, accepts a lower cap', async () => {
    const mandateId = await mandate(2_000);
    // As the gateway rail records a registration (src/rails/gateway/gateway.repository.ts).
    await t.db.query(
      `INSERT INTO gateway_mandate_tokens (mandate_id, customer_id, token_id, registration_order_id, status)
       VALUES ($1, 'cust_test', 'token_test', 'order_test', 'confirmed')`,
      [mandateId],
    );
    const higher = await amend(mandateId, { per_payment_cap_paise: 3_000 });
    expect(higher.status).toBe(409);
    expect(higher.body.error.code).toBe('amendment_needs_new_registration');
    const later = await amend(mandateId, {
      valid_until: new Date(t.clock.now().getTime() + 90 * DAY).toISOString(),
    });
    expect(later.status).toBe(409);
    expect((await amend(mandateId, { per_payment_cap_paise: 1_000 })).status).toBe(201);
  });

  it('renders the side-by-side page at 390 px wide without horizontal scrolling (mobile)', async () => {
    const mandateId = await mandate(2_000);
    const res = await amend(mandateId, { per_payment_cap_paise: 1_000, reason: 'Cheaper plan' });
    const session = await signIn(t, ws.email, ws.password);
    const browser = await chromium.launch({ executablePath: chromiumPath() });
    try {
      const ctx = await browser.newContext({ viewport: { width: 390, height: 844 } });
      const [name, value] = session.cookie.split('=');
      await ctx.addCookies([{ name, value, url: t.url }]);
      const page = await ctx.newPage();
      await page.goto(`${t.url}/app/mandates/${mandateId}/amendments/${res.body.id}`);
      expect(await page.locator('table.side-by-side tbody tr').count()).toBe(3);
      expect(await page.locator('button.approve').isVisible()).toBe(true);
      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      );
      expect(overflow).toBeLessThanOrEqual(0);
    } finally {
      await browser.close();
    }
  });
});
