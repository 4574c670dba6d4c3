import request from 'supertest';

import { ApprovalsService } from '../../src/approvals/approvals.service';
import { MandatesService } from '../../src/mandates/mandates.service';
import { RecurringChargesService } from '../../src/recurring/recurring-charges.service';
import { formatIst } from '../../src/web/local-time';
import { csrfFieldOf, signIn } from '../factories/app-session.factory';
import { bearer } from '../factories/intent.factory';
import { startApp, TestApp } from '../support/app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * Recurring payments under RBI's E-Mandate Framework 2026 (DOMAIN.md 12a; docs/recurring.md
 * "Recurring payments (UPI AutoPay)") on the sandbox rail, the clock moved to exact IST instants: the
 * pre-debit notice names the merchant, amount, debit date and time (IST), the mandate reference
 * and the seller's reason, the same on the webhook event, /app/autopay and the person's
 * notification; the person opts out of one debit (authenticated: the app with CSRF, or the buyer
 * agent's credential) while the mandate stays active; a post-debit alert follows every debit,
 * settled or failed; the mandate's first debit needs the person's authentication, unless it was
 * scheduled with the registration and authorised on the mandate's page.
 */
describe('recurring payments, E-Mandate Framework 2026', () => {
  let t: TestApp;
  let svc: RecurringChargesService;
  const HOUR = 3_600_000;
  const ist = (y: number, mo: number, d: number, h: number, mi = 0) =>
    new Date(Date.UTC(y, mo - 1, d, h, mi) - 330 * 60_000);
  const setNow = (at: Date) => {
    t.clock.reset();
    t.clock.advance(at.getTime() - Date.now());
  };
  const one = async <T>(sql: string, params: unknown[] = []): Promise<T> =>
    (await t.db.query<T[]>(sql, params))[0];
  /** The HTML text of a page, its entities decoded (Handlebars escapes `=` and quotes). */
  const text = (html: string) =>
    html
      .replace(/&#x3D;/g, '=')
      .replace(/&#x27;/g, "'")
      .replace(/&quot;/g, '"')
      .replace(/&#x60;/g, '`')
      .replace(/&amp;/g, '&');

  beforeAll(async () => {
    t = await startApp({ runWorkers: false });
    svc = t.get(RecurringChargesService);
  });
  afterAll(async () => {
    t?.clock.reset();
    await t?.close();
  });

  /** A recurring mandate of ws's buyer agent, pending the person unless `authorise`. */
  async function mandate(ws: SeededWorkspace, authorise = true): Promise<string> {
    const res = await request(t.url)
      .post('/v1/pay/mandates')
      .set(bearer(ws.buyer.credential))
      .send({
        kind: 'recurring',
        recurring: { billing_cycle: 'monthly' },
        per_payment_cap_paise: 500_000,
        payee_agent_ids: [ws.seller.id],
        valid_until: new Date(t.clock.now().getTime() + 300 * 24 * HOUR).toISOString(),
        description: 'Tea plan',
      });
    expect(res.status).toBe(201);
    if (authorise) {
      await t.get(MandatesService).authorise(ws.workspaceId, res.body.id, ws.personId);
    }
    return res.body.id as string;
  }

  const schedule = (ws: SeededWorkspace, mandateId: string, body: Record<string, unknown>) =>
    request(t.url)
      .post(`/v1/pay/mandates/${mandateId}/charges`)
      .set(bearer(ws.seller.credential))
      .send({ description: 'Monthly tea box', ...body });

  const chargeRow = (id: string) =>
    one<{
      status: string;
      approval_id: string | null;
      intent_id: string | null;
      failure_code: string | null;
      authorised_by: string | null;
    }>(
      `SELECT status, approval_id, intent_id, failure_code, authorised_by FROM recurring_charges WHERE id = $1`,
      [id],
    );

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON payload, read by the test
  type Json = Record<string, any>;
  const eventData = async (type: string, subjectId: string) =>
    (
      await one<{ payload: { data: Json } } | undefined>(
        `SELECT payload FROM outbox_events WHERE type = $1 AND subject_id = $2`,
        [type, subjectId],
      )
    )?.payload.data;

  const intentsOf = async (chargeId: string) =>
    (
      await one<{ n: number }>(
        `SELECT count(*)::int AS n FROM payment_intents WHERE source_kind = 'recurring' AND source_id = $1`,
        [chargeId],
      )
    ).n;

  async function approve(ws: SeededWorkspace, chargeId: string): Promise<void> {
    const c = await chargeRow(chargeId);
    await t.get(ApprovalsService).decide(ws.workspaceId, c.approval_id!, ws.personId, 'approved');
  }

  /**
   * Runs the charge at `at` until it leaves the live statuses (an after-commit hook may hold it a
   * moment: attempts skip a charge another transaction holds); the status it ends in.
   */
  async function debitAt(chargeId: string, at: Date): Promise<string> {
    setNow(at);
    const deadline = Date.now() + 10_000;
    for (;;) {
      await svc.attempt(chargeId);
      const { status } = await chargeRow(chargeId);
      const live = ['awaiting_authorisation', 'scheduled', 'processing'].includes(status);
      if (!live || Date.now() > deadline) {
        return status;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('the notice names merchant, amount, debit time (IST), mandate reference and reason: on the event, /app/autopay and the notification', async () => {
    setNow(ist(2027, 6, 1, 8, 0));
    const ws = await seedWorkspace(t);
    const mandateId = await mandate(ws);
    const res = await schedule(ws, mandateId, {
      amount_paise: 149_900,
      reason: 'Tea subscription, December',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      reason: 'Tea subscription, December',
      mandate_reference: { id: mandateId, upi_mandate_ref: null },
      opt_out: {
        url: `${t.config.appUrl}/autopay/charges/${res.body.id}/opt-out`,
        api: `POST /v1/pay/mandates/${mandateId}/charges/${res.body.id}/opt-out`,
      },
    });
    const when = formatIst(res.body.debit_at);
    expect(when).toBe('2 Jun 2027, 8:00 am IST');

    const data = (await eventData('recurring.pre_debit_notice', res.body.id))!;
    expect(data).toMatchObject({
      merchant: { agent_id: ws.seller.id, name: 'Chai Co' },
      seller_name: 'Chai Co',
      amount_paise: 149_900,
      currency: 'INR',
      debit_at: res.body.debit_at,
      debit_at_ist: when,
      mandate_id: mandateId,
      mandate_reference: { id: mandateId, upi_mandate_ref: null },
      reason: 'Tea subscription, December',
      opt_out: res.body.opt_out,
      revoke_mandate: { url: `${t.config.appUrl}/consent` },
    });
    const { title, body } = data.notification as { title: string; body: string };
    expect(title).toBe(`AutoPay: ₹1,499.00 to Chai Co on ${when}`);
    for (const part of [
      'Chai Co',
      '₹1,499.00',
      when,
      mandateId,
      'Reason: Tea subscription, December.',
      `opt out before then at ${res.body.opt_out.url}`,
      'your mandate stays active',
    ]) {
      expect(body).toContain(part);
    }

    const session = await signIn(t, ws.email, ws.password);
    const page = await request(t.url).get('/app/autopay').set('Cookie', session.cookie);
    expect(page.status).toBe(200);
    const html = text(page.text);
    for (const part of ['Chai Co', '₹1,499.00', when, mandateId, 'Tea subscription, December']) {
      expect(html).toContain(part);
    }
    expect(html).toContain('Opt out of this debit');
    // The person's notification carries the event's very words.
    expect(html).toContain(title);
    expect(html).toContain(body);

    // Without a reason the description stands in; a reason past 140 characters is refused.
    const m2 = await mandate(ws);
    const defaulted = await schedule(ws, m2, { amount_paise: 1000 });
    expect(defaulted.body.reason).toBe('Monthly tea box');
    const m3 = await mandate(ws);
    const long = await schedule(ws, m3, { amount_paise: 1000, reason: 'x'.repeat(141) });
    expect(long.status).toBe(400);
    expect(long.body.error.param).toBe('$.reason');
  });

  it('the buyer agent opts out of one debit (authenticated): nothing is debited, the mandate stays active', async () => {
    setNow(ist(2027, 7, 1, 8, 0));
    const ws = await seedWorkspace(t);
    const mandateId = await mandate(ws);
    const a = await schedule(ws, mandateId, { amount_paise: 5000, reason: 'July tea' });
    const path = `/v1/pay/mandates/${mandateId}/charges/${a.body.id}/opt-out`;

    expect((await request(t.url).post(path)).status).toBe(401);
    const bySeller = await request(t.url).post(path).set(bearer(ws.seller.credential));
    expect(bySeller.status).toBe(403);
    const other = await seedWorkspace(t);
    const byStranger = await request(t.url).post(path).set(bearer(other.buyer.credential));
    expect(byStranger.status).toBe(404);
    expect((await chargeRow(a.body.id)).status).toBe('awaiting_authorisation');

    const out = await request(t.url)
      .post(path)
      .set(bearer(ws.buyer.credential))
      .set('Idempotency-Key', 'opt-out-july');
    expect(out.status).toBe(200);
    expect(out.body).toMatchObject({
      status: 'cancelled',
      failure_code: 'opted_out',
      opt_out: null,
    });
    const again = await request(t.url)
      .post(path)
      .set(bearer(ws.buyer.credential))
      .set('Idempotency-Key', 'opt-out-july');
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(a.body.id);
    const cancelled = (await eventData('recurring.charge_cancelled', a.body.id))!;
    expect(cancelled.reason_code).toBe('opted_out');
    // The approval the first debit waited on is withdrawn with it.
    expect(
      (
        await one<{ status: string }>(`SELECT status FROM approvals WHERE subject_id = $1`, [
          a.body.id,
        ])
      ).status,
    ).not.toBe('pending');

    const m = await request(t.url)
      .get(`/v1/pay/mandates/${mandateId}`)
      .set(bearer(ws.buyer.credential));
    expect(m.body.status).toBe('active');
    setNow(ist(2027, 7, 2, 9, 0));
    await svc.runDue();
    expect(await intentsOf(a.body.id)).toBe(0);
    // The next cycle can be scheduled (and so could this one: the opted-out charge freed it).
    const next = await schedule(ws, mandateId, {
      amount_paise: 5000,
      debit_after: ist(2027, 8, 2, 8, 0).toISOString(),
    });
    expect(next.status).toBe(201);
    expect(next.body.status).not.toBe('cancelled');
  });

  it('the person opts out in the app: signed in with the CSRF token only', async () => {
    setNow(ist(2027, 8, 1, 8, 0));
    const ws = await seedWorkspace(t);
    const mandateId = await mandate(ws);
    const a = await schedule(ws, mandateId, { amount_paise: 7000, reason: 'August tea' });
    const url = `/app/autopay/charges/${a.body.id}/opt-out`;

    const anonymous = await request(t.url).post(url).type('form').send({ confirm: 'yes' });
    expect(anonymous.status).toBe(401);
    const session = await signIn(t, ws.email, ws.password);
    const noCsrf = await request(t.url)
      .post(url)
      .set('Cookie', session.cookie)
      .type('form')
      .send({ confirm: 'yes' });
    expect(noCsrf.status).toBe(403);
    expect((await chargeRow(a.body.id)).status).toBe('awaiting_authorisation');

    const confirm = await request(t.url).get(url).set('Cookie', session.cookie);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('Opt out of this debit?');
    expect(confirm.text).toContain('August tea');
    const done = await request(t.url)
      .post(url)
      .set('Cookie', session.cookie)
      .type('form')
      .send({ _csrf: csrfFieldOf(confirm.text), confirm: 'yes' });
    expect(done.status).toBe(303);
    expect(await chargeRow(a.body.id)).toMatchObject({
      status: 'cancelled',
      failure_code: 'opted_out',
    });
    const m = await request(t.url)
      .get(`/v1/pay/mandates/${mandateId}`)
      .set(bearer(ws.buyer.credential));
    expect(m.body.status).toBe('active');
    const next = await schedule(ws, mandateId, {
      amount_paise: 7000,
      debit_after: ist(2027, 9, 2, 8, 0).toISOString(),
    });
    expect(next.status).toBe(201);
  });

  it('after a settled debit: an alert with amount, merchant, mandate reference, receipt and how to raise a grievance', async () => {
    setNow(ist(2027, 9, 1, 8, 0));
    const ws = await seedWorkspace(t);
    const mandateId = await mandate(ws);
    const a = await schedule(ws, mandateId, { amount_paise: 25_000, reason: 'September tea' });
    await approve(ws, a.body.id);
    expect(await eventData('recurring.post_debit_alert', a.body.id)).toBeUndefined();
    expect(await debitAt(a.body.id, ist(2027, 9, 2, 8, 1))).toBe('settled');
    const intent = await one<{ receipt_id: string }>(
      `SELECT receipt_id FROM payment_intents WHERE id = $1`,
      [(await chargeRow(a.body.id)).intent_id],
    );
    const alert = (await eventData('recurring.post_debit_alert', a.body.id))!;
    expect(alert).toMatchObject({
      outcome: 'settled',
      status: 'settled',
      amount_paise: 25_000,
      merchant: { agent_id: ws.seller.id, name: 'Chai Co' },
      mandate_reference: { id: mandateId, upi_mandate_ref: null },
      reason: 'September tea',
      receipt: {
        id: intent.receipt_id,
        url: `${t.config.appUrl}/receipts/${intent.receipt_id}`,
      },
      failure: null,
      retry: null,
      grievance: { url: `${t.config.appUrl}/legal/privacy` },
    });
    expect(alert.grievance.words).toMatch(/raise a grievance or dispute/);
    const body = alert.notification.body as string;
    for (const part of ['₹250.00', 'Chai Co', mandateId, intent.receipt_id, 'grievance']) {
      expect(body).toContain(part);
    }
    const session = await signIn(t, ws.email, ws.password);
    const page = text(
      (await request(t.url).get('/app/autopay').set('Cookie', session.cookie)).text,
    );
    expect(page).toContain(alert.notification.title);
    expect(page).toContain(body);
    expect(page).toContain(`/app/receipts/${intent.receipt_id}`);
  });

  it('after a failed debit: the alert says why and that it will not be retried', async () => {
    setNow(ist(2027, 10, 1, 8, 0));
    const ws = await seedWorkspace(t);
    const mandateId = await mandate(ws);
    // The sandbox bank refuses amounts ending in 51 paise (insufficient funds).
    const a = await schedule(ws, mandateId, { amount_paise: 10_051, reason: 'October tea' });
    await approve(ws, a.body.id);
    expect(await debitAt(a.body.id, ist(2027, 10, 2, 8, 1))).toBe('failed');
    const alert = (await eventData('recurring.post_debit_alert', a.body.id))!;
    expect(alert).toMatchObject({
      outcome: 'failed',
      amount_paise: 10_051,
      merchant: { name: 'Chai Co' },
      mandate_reference: { id: mandateId },
      failure: { code: 'insufficient_funds' },
      retry: { will_retry: false, next_attempt_at: null },
    });
    expect(alert.retry.words).toMatch(/will not be retried automatically/);
    expect(alert.notification.body).toContain('did not go through');
    expect(alert.notification.body).toContain(alert.failure.reason);
    expect(alert.notification.body).toContain(alert.retry.words);
    expect(alert.notification.body).toContain(alert.grievance.words);
    const session = await signIn(t, ws.email, ws.password);
    const page = text(
      (await request(t.url).get('/app/autopay').set('Cookie', session.cookie)).text,
    );
    expect(page).toContain(alert.notification.body);
    // One alert per debit, whatever runs again.
    await svc.runDue();
    expect(
      (
        await one<{ n: number }>(
          `SELECT count(*)::int AS n FROM outbox_events WHERE type = 'recurring.post_debit_alert' AND subject_id = $1`,
          [a.body.id],
        )
      ).n,
    ).toBe(1);
  });

  it('the first debit of a mandate waits for the person’s approval whatever its amount; later ones at or below ₹2,000 do not', async () => {
    expect(svc.authorisationFor(1000, true)).toBe('approval');
    expect(svc.authorisationFor(1000, false)).toBe('none');
    setNow(ist(2027, 11, 1, 8, 0));
    const ws = await seedWorkspace(t);
    const mandateId = await mandate(ws);
    const first = await schedule(ws, mandateId, { amount_paise: 1000 });
    expect(first.body).toMatchObject({
      status: 'awaiting_authorisation',
      authorisation: 'approval',
      first_debit: true,
    });
    const approval = await one<{ kind: string; summary: string }>(
      `SELECT kind, summary FROM approvals WHERE id = $1`,
      [(await chargeRow(first.body.id)).approval_id],
    );
    expect(approval.kind).toBe('recurring_charge');
    expect(approval.summary).toContain('first debit');
    // Unapproved past its debit time: nothing is debited.
    setNow(ist(2027, 11, 2, 9, 0));
    await svc.runDue();
    expect(await svc.attempt(first.body.id)).toBe('not_due');
    expect(await intentsOf(first.body.id)).toBe(0);
    await approve(ws, first.body.id);
    expect(await debitAt(first.body.id, ist(2027, 11, 2, 9, 1))).toBe('settled');
    const second = await schedule(ws, mandateId, {
      amount_paise: 1000,
      debit_after: ist(2027, 12, 2, 8, 0).toISOString(),
    });
    expect(second.body).toMatchObject({
      status: 'scheduled',
      authorisation: 'none',
      first_debit: false,
    });
  });

  it('a first debit scheduled with the registration is authorised on the mandate page with it, and debited without a second approval', async () => {
    setNow(ist(2028, 1, 3, 8, 0));
    const ws = await seedWorkspace(t);
    const mandateId = await mandate(ws, false);
    const first = await schedule(ws, mandateId, {
      amount_paise: 300_000,
      reason: 'Tea subscription, January',
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      status: 'awaiting_authorisation',
      authorisation: 'with_registration',
      first_debit: true,
    });
    // One first debit per registration.
    const second = await schedule(ws, mandateId, {
      amount_paise: 1000,
      debit_after: ist(2028, 2, 4, 8, 0).toISOString(),
    });
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('mandate_not_active');
    const notice = (await eventData('recurring.pre_debit_notice', first.body.id))!;
    expect(notice.authorisation_url).toBe(`${t.config.appUrl}/mandates/${mandateId}/authorize`);
    // Waiting for the mandate, the charge is not debited at its time.
    setNow(ist(2028, 1, 4, 9, 0));
    await svc.runDue();
    expect(await svc.attempt(first.body.id)).toBe('not_due');
    expect(await intentsOf(first.body.id)).toBe(0);

    const session = await signIn(t, ws.email, ws.password);
    const page = await request(t.url)
      .get(`/app/mandates/${mandateId}/authorize`)
      .set('Cookie', session.cookie);
    expect(page.status).toBe(200);
    expect(text(page.text)).toContain('First debit ₹3,000.00 on 4 Jan 2028, 8:00 am IST');
    expect(page.text).toContain('Tea subscription, January');
    expect(page.text).toContain('Authorising this mandate also authorises this first debit');
    const done = await request(t.url)
      .post(`/app/mandates/${mandateId}/authorize`)
      .set('Cookie', session.cookie)
      .type('form')
      .send({ _csrf: csrfFieldOf(page.text), confirm: 'yes' });
    expect(done.status).toBe(303);
    expect(await debitAt(first.body.id, ist(2028, 1, 4, 9, 1))).toBe('settled');
    const row = await chargeRow(first.body.id);
    expect(row).toMatchObject({ approval_id: null, authorised_by: ws.personId });
    expect(
      (
        await one<{ n: number }>(
          `SELECT count(*)::int AS n FROM approvals WHERE subject_id IN ($1, $2)`,
          [first.body.id, row.intent_id],
        )
      ).n,
    ).toBe(0);
    const receipt = await one<{ receipt_context: Json }>(
      `SELECT receipt_context FROM payment_intents WHERE id = $1`,
      [row.intent_id],
    );
    expect(receipt.receipt_context.recurring_charge).toMatchObject({
      first_debit: true,
      authorisation: 'with_registration',
      authorised_with_registration: { decided_by: ws.personId },
    });
  });

  it('a first debit scheduled with the registration ends when the person declines the mandate', async () => {
    setNow(ist(2028, 2, 3, 8, 0));
    const ws = await seedWorkspace(t);
    const mandateId = await mandate(ws, false);
    const first = await schedule(ws, mandateId, { amount_paise: 1000 });
    expect(first.body.authorisation).toBe('with_registration');
    await t.get(MandatesService).decline(ws.workspaceId, mandateId, ws.personId);
    expect(await debitAt(first.body.id, ist(2028, 2, 4, 9, 0))).toBe('cancelled');
    expect(await chargeRow(first.body.id)).toMatchObject({ failure_code: 'mandate_revoked' });
    expect(await intentsOf(first.body.id)).toBe(0);
  });
});
