import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import request from 'supertest';

import { ApprovalsService } from '../../src/approvals/approvals.service';
import { QUEUES } from '../../src/common/queues/queues';
import { MandatesService } from '../../src/mandates/mandates.service';
import { RecurringChargesService } from '../../src/recurring/recurring-charges.service';
import { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher';
import { csrfFieldOf, signIn } from '../factories/app-session.factory';
import { bearer } from '../factories/intent.factory';
import { createOffer } from '../factories/offer.factory';
import { mandateDelegateBody } from '../factories/payment-fixtures';
import { createCheckoutSession } from '../factories/session.factory';
import type { TestApp } from './app';
import { acpHeaders, SeededWorkspace, seedWorkspace } from './seed';

/** A started service (on either rail) for the recurring suite, and how to stop it. */
export interface RecurringHarness {
  t: TestApp;
  close(): Promise<void>;
}

/**
 * Recurring payments on UPI AutoPay mandates, on either rail (docs/recurring.md "Recurring payments (UPI
 * AutoPay)"), with the service's clock moved to exact IST instants: the pre-debit notice (webhook
 * event and the person's /app/autopay page), no debit before 24 h after it, none inside a blocked
 * window (default 10:00–13:00 and 17:00–21:30 IST), at most one per billing cycle, cancel before
 * the debit stops it, the person's authorisation above ₹2,000 (and as UPI's AFA above ₹15,000),
 * and every debit through the pipeline ending on a signed receipt and intent.settled.
 */
export function recurringSuite(rail: string, start: () => Promise<RecurringHarness>): void {
  describe(`recurring charges (UPI AutoPay), ${rail} rail`, () => {
    let h: RecurringHarness;
    let t: TestApp;
    let ws: SeededWorkspace;
    let svc: RecurringChargesService;

    /** An instant given on the IST wall clock. */
    const ist = (y: number, mo: number, d: number, h: number, mi = 0) =>
      new Date(Date.UTC(y, mo - 1, d, h, mi) - 330 * 60_000);
    const HOUR = 3_600_000;

    /** Moves the service's clock so that now is `at` (it keeps running from there). */
    function setNow(at: Date): void {
      t.clock.reset();
      t.clock.advance(at.getTime() - Date.now());
    }

    const one = async <T>(sql: string, params: unknown[] = []): Promise<T> =>
      (await t.db.query<T[]>(sql, params))[0];

    beforeAll(async () => {
      h = await start();
      t = h.t;
      ws = await seedWorkspace(t);
      svc = t.get(RecurringChargesService);
    });
    afterAll(async () => {
      t?.clock.reset();
      await h?.close();
    });

    /** A recurring mandate of the buyer agent, created over the API and authorised by the person. */
    async function recurringMandate(
      opts: { cycle?: string; capPaise?: number; payees?: string[]; validDays?: number } = {},
    ): Promise<string> {
      const now = t.clock.now();
      const res = await request(t.url)
        .post('/v1/pay/mandates')
        .set(bearer(ws.buyer.credential))
        .send({
          kind: 'recurring',
          recurring: { billing_cycle: opts.cycle ?? 'daily' },
          per_payment_cap_paise: opts.capPaise ?? 2_000_000,
          payee_agent_ids: opts.payees ?? [ws.seller.id],
          valid_until: new Date(now.getTime() + (opts.validDays ?? 60) * 24 * HOUR).toISOString(),
          description: 'Daily chai subscription',
        });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        kind: 'recurring',
        rail: 'upi_autopay',
        recurring: { billing_cycle: opts.cycle ?? 'daily' },
        status: 'pending_authorisation',
      });
      await t.get(MandatesService).authorise(ws.workspaceId, res.body.id, ws.personId);
      return res.body.id as string;
    }

    const schedule = (
      mandateId: string,
      body: Record<string, unknown>,
      credential = ws.seller.credential,
    ) =>
      request(t.url)
        .post(`/v1/pay/mandates/${mandateId}/charges`)
        .set(bearer(credential))
        .send({ description: 'Chai for a day', ...body });

    async function charge(id: string) {
      return one<{
        status: string;
        intent_id: string | null;
        debit_at: Date;
        failure_code: string | null;
        approval_id: string | null;
      }>(
        `SELECT status, intent_id, debit_at, failure_code, approval_id FROM recurring_charges WHERE id = $1`,
        [id],
      );
    }

    /**
     * The person approves the charge in the app's Approvals: the mandate's first debit always
     * asks (RBI E-Mandate Framework 2026, DOMAIN.md 12a), whatever its amount.
     */
    async function authorise(chargeId: string): Promise<void> {
      const c = await charge(chargeId);
      expect(c.status).toBe('awaiting_authorisation');
      await t.get(ApprovalsService).decide(ws.workspaceId, c.approval_id!, ws.personId, 'approved');
    }

    async function settles(chargeId: string): Promise<void> {
      const deadline = Date.now() + 10_000;
      while ((await charge(chargeId)).status !== 'settled') {
        if (Date.now() > deadline) {
          throw new Error(`charge ${chargeId} did not settle`);
        }
        await svc.runDue();
        await new Promise((r) => setTimeout(r, 50));
      }
    }

    const intentsOf = async (chargeId: string) =>
      (
        await one<{ n: number }>(
          `SELECT count(*)::int AS n FROM payment_intents WHERE source_kind = 'recurring' AND source_id = $1`,
          [chargeId],
        )
      ).n;

    it('creates a recurring mandate only with a billing cycle, a payee list and the AutoPay rail', async () => {
      const until = new Date(t.clock.now().getTime() + 30 * 24 * HOUR).toISOString();
      const base = { per_payment_cap_paise: 100_000, valid_until: until };
      const noCycle = await request(t.url)
        .post('/v1/pay/mandates')
        .set(bearer(ws.buyer.credential))
        .send({ ...base, kind: 'recurring', payee_agent_ids: [ws.seller.id] });
      expect(noCycle.status).toBe(400);
      const noPayees = await request(t.url)
        .post('/v1/pay/mandates')
        .set(bearer(ws.buyer.credential))
        .send({ ...base, kind: 'recurring', recurring: { billing_cycle: 'monthly' } });
      expect(noPayees.status).toBe(400);
      expect(noPayees.body.error.param).toBe('$.payee_agent_ids');
      const wrongRail = await request(t.url)
        .post('/v1/pay/mandates')
        .set(bearer(ws.buyer.credential))
        .send({
          ...base,
          kind: 'recurring',
          rail: 'upi_otm',
          recurring: { billing_cycle: 'monthly' },
          payee_agent_ids: [ws.seller.id],
        });
      expect(wrongRail.status).toBe(400);
      const autopayStanding = await request(t.url)
        .post('/v1/pay/mandates')
        .set(bearer(ws.buyer.credential))
        .send({ ...base, rail: 'upi_autopay' });
      expect(autopayStanding.status).toBe(400);
      const badCycle = await request(t.url)
        .post('/v1/pay/mandates')
        .set(bearer(ws.buyer.credential))
        .send({
          ...base,
          kind: 'recurring',
          recurring: { billing_cycle: 'hourly' },
          payee_agent_ids: [ws.seller.id],
        });
      expect(badCycle.status).toBe(400);
      expect(
        (
          await one<{ n: number }>(
            `SELECT count(*)::int AS n FROM mandates WHERE kind = 'recurring'`,
          )
        ).n,
      ).toBe(0);
    });

    it('announces the debit, takes nothing before 24 h, then debits once through the pipeline to a signed receipt', async () => {
      setNow(ist(2026, 12, 1, 8, 0));
      const mandateId = await recurringMandate();
      const res = await schedule(mandateId, { amount_paise: 150_000 }).set(
        'Idempotency-Key',
        'rch-1',
      );
      expect(res.status).toBe(201);
      const noticeAt = new Date(res.body.notice_at);
      expect(res.body).toMatchObject({
        object: 'recurring_charge',
        // The mandate's first debit waits for the person, whatever its amount.
        status: 'awaiting_authorisation',
        amount_paise: 150_000,
        authorisation: 'approval',
        first_debit: true,
        // Daily cycles start at 00:00 IST of the mandate's first day: tomorrow is cycle 1.
        billing_cycle: { index: 1 },
      });
      await authorise(res.body.id);
      // 08:00 IST + 24 h is outside every blocked window: exactly 24 h after the notice.
      expect(new Date(res.body.debit_at).getTime() - noticeAt.getTime()).toBe(24 * HOUR);
      const again = await schedule(mandateId, { amount_paise: 150_000 }).set(
        'Idempotency-Key',
        'rch-1',
      );
      expect(again.body.id).toBe(res.body.id);

      // A second charge in the same billing cycle (Dec 2, IST) is refused.
      const second = await schedule(mandateId, {
        amount_paise: 1000,
        debit_after: ist(2026, 12, 2, 22, 0).toISOString(),
      });
      expect(second.status).toBe(409);
      expect(second.body.error.code).toBe('cycle_already_charged');
      expect(second.body.error.message).toContain(res.body.id);

      // The pre-debit notice to the buyer's endpoints: exact amount, when, how to cancel.
      const notice = await one<{
        workspace_id: string;
        agent_id: string;
        payload: { data: Record<string, unknown> };
      }>(
        `SELECT workspace_id, agent_id, payload FROM outbox_events WHERE type = 'recurring.pre_debit_notice' AND subject_id = $1`,
        [res.body.id],
      );
      expect(notice.workspace_id).toBe(ws.workspaceId);
      expect(notice.agent_id).toBe(ws.buyer.id);
      expect(notice.payload.data).toMatchObject({
        charge_id: res.body.id,
        amount_paise: 150_000,
        currency: 'INR',
        debit_at: res.body.debit_at,
        cancel: {
          url: `${t.config.appUrl}/autopay/charges/${res.body.id}/cancel`,
          api: `POST /v1/pay/mandates/${mandateId}/charges/${res.body.id}/cancel`,
        },
      });

      // Bull's delayed job waits for the debit time (RUN_WORKERS is off here: nothing consumes it).
      const { getQueueToken } = await import('@nestjs/bull');
      const queue = t.app.get<import('bull').Queue>(getQueueToken(QUEUES.recurring));
      const job = await queue.getJob(`rch-${res.body.id}-${new Date(res.body.debit_at).getTime()}`);
      expect(job).not.toBeNull();
      expect(job!.opts.delay).toBeGreaterThan(24 * HOUR - 60_000);
      await job!.remove();

      // A minute before the debit time: nothing happens.
      setNow(new Date(noticeAt.getTime() + 24 * HOUR - 60_000));
      expect(await svc.attempt(res.body.id)).toBe('not_due');
      expect(await intentsOf(res.body.id)).toBe(0);

      setNow(new Date(noticeAt.getTime() + 24 * HOUR + 60_000));
      expect(await svc.attempt(res.body.id)).toBe('debiting');
      const c = await charge(res.body.id);
      expect(c.status).toBe('settled');
      const intent = await one<{
        status: string;
        receipt_id: string | null;
        amount_paise: string;
        receipt_context: Record<string, unknown>;
      }>(
        `SELECT status, receipt_id, amount_paise, receipt_context FROM payment_intents WHERE id = $1`,
        [c.intent_id],
      );
      expect(intent).toMatchObject({ status: 'settled', amount_paise: '150000' });
      expect(intent.receipt_id).toMatch(/^rcp_/);
      expect(intent.receipt_context).toMatchObject({
        recurring_charge: { id: res.body.id, mandate_id: mandateId, cycle: { index: 1 } },
      });
      const settled = await one<{ n: number }>(
        `SELECT count(*)::int AS n FROM outbox_events WHERE type = 'intent.settled' AND subject_id = $1`,
        [c.intent_id],
      );
      expect(settled.n).toBe(1);
      // Running it again (a late job, the sweep) debits nothing more.
      expect(await svc.attempt(res.body.id)).toBe('skipped');
      await svc.runDue();
      expect(await intentsOf(res.body.id)).toBe(1);

      // The settled charge still holds its cycle in the database itself (the unique index).
      await expect(
        t.db.query(
          `INSERT INTO recurring_charges (id, mandate_id, buyer_workspace_id, buyer_agent_id, seller_workspace_id,
           seller_agent_id, amount_paise, description, status, notice_at, debit_at, cycle_index, cycle_start,
           cycle_end, authorisation, created_at, updated_at, reason)
         SELECT 'rch_dup', mandate_id, buyer_workspace_id, buyer_agent_id, seller_workspace_id, seller_agent_id,
           100, 'dup', 'scheduled', notice_at, debit_at, cycle_index, cycle_start, cycle_end, 'none', now(), now(), 'dup'
           FROM recurring_charges WHERE id = $1`,
          [res.body.id],
        ),
      ).rejects.toThrow(/recurring_charges_cycle_live_key/);
      // The next day's cycle is free.
      const next = await schedule(mandateId, { amount_paise: 1000 });
      expect(next.status).toBe(201);
      expect(next.body.billing_cycle.index).toBe(2);
      // After a settled debit, a debit at or below ₹2,000 needs nothing more from the person.
      expect(next.body).toMatchObject({
        status: 'scheduled',
        authorisation: 'none',
        first_debit: false,
      });
    });

    it('never debits inside a blocked window: the schedule skips it and a late job is deferred to its end', async () => {
      // Noticed at 11:00 IST: 24 h later is 11:00, inside 10:00–13:00, so the debit is at 13:00.
      setNow(ist(2026, 12, 10, 11, 0));
      const m1 = await recurringMandate();
      const a = await schedule(m1, { amount_paise: 5000 });
      expect(a.status).toBe(201);
      expect(new Date(a.body.debit_at).toISOString()).toBe(ist(2026, 12, 11, 13, 0).toISOString());

      // Noticed at 09:30 IST: debit at 09:30 next day; the job runs late, at 10:15 (blocked).
      setNow(ist(2026, 12, 10, 9, 30));
      const m2 = await recurringMandate();
      const b = await schedule(m2, { amount_paise: 5000 });
      // Exactly 24 h after the notice (the clock runs on from 09:30 by a few ms).
      expect(new Date(b.body.debit_at).getTime() - new Date(b.body.notice_at).getTime()).toBe(
        24 * HOUR,
      );
      expect(
        Math.abs(new Date(b.body.debit_at).getTime() - ist(2026, 12, 11, 9, 30).getTime()),
      ).toBeLessThan(5000);
      await authorise(b.body.id);
      setNow(ist(2026, 12, 11, 10, 15));
      expect(await svc.attempt(b.body.id)).toBe('deferred');
      expect((await charge(b.body.id)).debit_at.toISOString()).toBe(
        ist(2026, 12, 11, 13, 0).toISOString(),
      );
      expect(await intentsOf(b.body.id)).toBe(0);
      setNow(ist(2026, 12, 11, 12, 59));
      expect(await svc.attempt(b.body.id)).toBe('not_due');
      setNow(ist(2026, 12, 11, 13, 0));
      expect(await svc.attempt(b.body.id)).toBe('debiting');
      expect((await charge(b.body.id)).status).toBe('settled');

      // The evening window too: a charge due at 17:00 IST sharp waits until 21:30.
      setNow(ist(2026, 12, 11, 17, 0));
      const m3 = await recurringMandate();
      const c = await schedule(m3, { amount_paise: 5000 });
      expect(new Date(c.body.debit_at).toISOString()).toBe(ist(2026, 12, 12, 21, 30).toISOString());
    });

    it('cancelled before the debit (by the buyer or the person in the app), nothing is debited', async () => {
      setNow(ist(2026, 12, 15, 7, 0));
      const mandateId = await recurringMandate();
      const a = await schedule(mandateId, { amount_paise: 2500 });
      const cancel = await request(t.url)
        .post(`/v1/pay/mandates/${mandateId}/charges/${a.body.id}/cancel`)
        .set(bearer(ws.buyer.credential));
      expect(cancel.status).toBe(200);
      expect(cancel.body.status).toBe('cancelled');
      const event = await one<{ n: number }>(
        `SELECT count(*)::int AS n FROM outbox_events WHERE type = 'recurring.charge_cancelled' AND subject_id = $1`,
        [a.body.id],
      );
      expect(event.n).toBe(1);
      setNow(ist(2026, 12, 16, 8, 0));
      await svc.runDue();
      expect(await svc.attempt(a.body.id)).toBe('skipped');
      expect(await intentsOf(a.body.id)).toBe(0);

      // The person sees the next one on /app/autopay and cancels it there (confirmation step).
      const b = await schedule(mandateId, { amount_paise: 3100 });
      expect(b.status).toBe(201);
      const session = await signIn(t, ws.email, ws.password);
      const page = await request(t.url).get('/app/autopay').set('Cookie', session.cookie);
      expect(page.status).toBe(200);
      expect(page.text).toContain(b.body.id);
      expect(page.text).toContain('₹31.00');
      const confirm = await request(t.url)
        .get(`/app/autopay/charges/${b.body.id}/cancel`)
        .set('Cookie', session.cookie);
      expect(confirm.status).toBe(200);
      expect(confirm.text).toContain('Nothing will be debited');
      const done = await request(t.url)
        .post(`/app/autopay/charges/${b.body.id}/cancel`)
        .set('Cookie', session.cookie)
        .type('form')
        .send({ _csrf: csrfFieldOf(confirm.text), confirm: 'yes' });
      expect(done.status).toBe(303);
      expect((await charge(b.body.id)).status).toBe('cancelled');
      setNow(ist(2026, 12, 18, 8, 0));
      await svc.runDue();
      expect(await intentsOf(b.body.id)).toBe(0);

      // A debit being made or made cannot be cancelled.
      const c = await schedule(mandateId, { amount_paise: 1000 });
      await authorise(c.body.id);
      setNow(new Date(new Date(c.body.debit_at).getTime() + 1000));
      await svc.attempt(c.body.id);
      const late = await request(t.url)
        .post(`/v1/pay/mandates/${mandateId}/charges/${c.body.id}/cancel`)
        .set(bearer(ws.seller.credential));
      expect(late.status).toBe(409);
      expect(late.body.error.code).toBe('charge_not_cancellable');
    });

    it('asks the person above ₹2,000 and as UPI AFA above ₹15,000; nothing is debited until they authorise', async () => {
      expect(svc.authorisationFor(200_000)).toBe('none');
      expect(svc.authorisationFor(200_001)).toBe('approval');
      expect(svc.authorisationFor(1_500_000)).toBe('approval');
      expect(svc.authorisationFor(1_500_001)).toBe('upi_afa');

      setNow(ist(2026, 12, 20, 6, 0));
      const mandateId = await recurringMandate({ cycle: 'monthly', capPaise: 2_000_000 });
      const res = await schedule(mandateId, { amount_paise: 1_500_001 });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        status: 'awaiting_authorisation',
        authorisation: 'upi_afa',
      });
      const c0 = await charge(res.body.id);
      const approval = await one<{
        kind: string;
        status: string;
        amount_paise: string;
        expires_at: Date;
      }>(`SELECT kind, status, amount_paise, expires_at FROM approvals WHERE id = $1`, [
        c0.approval_id,
      ]);
      expect(approval).toMatchObject({
        kind: 'recurring_charge',
        status: 'pending',
        amount_paise: '1500001',
      });

      // Past the debit time without the authorisation: no debit.
      setNow(ist(2026, 12, 21, 7, 0));
      await svc.runDue();
      expect(await svc.attempt(res.body.id)).toBe('not_due');
      expect(await intentsOf(res.body.id)).toBe(0);

      await t
        .get(ApprovalsService)
        .decide(ws.workspaceId, c0.approval_id!, ws.personId, 'approved');
      // Authorised after its debit time: debited at once (the job queued on approval, or the sweep).
      await settles(res.body.id);
      const c1 = await charge(res.body.id);
      expect(c1.status).toBe('settled');
      const intent = await one<{
        status: string;
        receipt_context: { approval?: { approval_id: string } };
      }>(`SELECT status, receipt_context FROM payment_intents WHERE id = $1`, [c1.intent_id]);
      expect(intent.status).toBe('settled');
      expect(intent.receipt_context.approval?.approval_id).toBe(c0.approval_id);
      // No second approval was opened by the pipeline.
      expect(
        (
          await one<{ n: number }>(
            `SELECT count(*)::int AS n FROM approvals WHERE subject_id = $1`,
            [c1.intent_id],
          )
        ).n,
      ).toBe(0);

      // A denied authorisation cancels the charge: nothing is debited.
      setNow(ist(2027, 1, 20, 6, 0));
      const d = await schedule(mandateId, { amount_paise: 300_000 });
      expect(d.body.authorisation).toBe('approval');
      const dc = await charge(d.body.id);
      await t.get(ApprovalsService).decide(ws.workspaceId, dc.approval_id!, ws.personId, 'denied');
      setNow(ist(2027, 1, 21, 8, 0));
      await svc.runDue();
      expect((await charge(d.body.id)).status).toBe('cancelled');
      expect(await intentsOf(d.body.id)).toBe(0);
    });

    it('refuses what the mandate does not allow, and a recurring mandate pays nothing but its charges', async () => {
      setNow(ist(2027, 2, 1, 8, 0));
      const mandateId = await recurringMandate({ capPaise: 100_000 });
      const above = await schedule(mandateId, { amount_paise: 100_001 });
      expect(above.status).toBe(400);
      expect(above.body.error.code).toBe('mandate_cap_exceeded');
      const byBuyer = await schedule(mandateId, { amount_paise: 1000 }, ws.buyer.credential);
      expect(byBuyer.status).toBe(403);
      const other = await seedWorkspace(t);
      const notListed = await schedule(mandateId, { amount_paise: 1000 }, other.seller.credential);
      expect(notListed.status).toBe(403);
      const unknown = await schedule('mdt_doesnotexist', { amount_paise: 1000 });
      expect(unknown.status).toBe(404);
      const hostile = await schedule(mandateId, { amount_paise: 1e30, description: 'x\u0000' });
      expect(hostile.status).toBe(400);
      // Another seller cannot even read the charges of this mandate.
      const ok = await schedule(mandateId, { amount_paise: 1000 });
      const peek = await request(t.url)
        .get(`/v1/pay/mandates/${mandateId}/charges/${ok.body.id}`)
        .set(bearer(other.seller.credential));
      expect(peek.status).toBe(404);
      const list = await request(t.url)
        .get(`/v1/pay/mandates/${mandateId}/charges`)
        .set(bearer(ws.buyer.credential));
      expect(list.status).toBe(200);
      expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([ok.body.id]);

      // No delegated token is minted on a recurring mandate.
      await createOffer(t, ws.seller.id, { sku: 'rch-tea', unitPaise: 1000 });
      const session = await createCheckoutSession(t, ws);
      const delegated = await request(t.url)
        .post('/acp/agentic_commerce/delegate_payment')
        .set(acpHeaders(ws.buyerKey, randomUUID()))
        .send(
          mandateDelegateBody({
            mandateId,
            sessionId: session.id,
            merchantId: ws.seller.id,
            maxAmountPaise: 1000,
            now: t.clock.now(),
            validForMs: HOUR,
          }),
        );
      expect(delegated.status).toBe(400);
      expect(delegated.body.param).toBe('$.payment_method.mandate_id');
      expect(
        (
          await one<{ n: number }>(
            `SELECT count(*)::int AS n FROM delegated_tokens WHERE mandate_id = $1`,
            [mandateId],
          )
        ).n,
      ).toBe(0);

      // A quote paid on the recurring mandate is declined by the buyer's rules.
      const quote = await request(t.url)
        .post('/v1/pay/quotes')
        .set(bearer(ws.seller.credential))
        .send({
          buyer_agent_id: ws.buyer.id,
          category: 'services.test',
          items: [{ name: 'One-off', unit_paise: 1000 }],
        });
      const paid = await request(t.url)
        .post(`/v1/pay/quotes/${quote.body.id}/pay`)
        .set(bearer(ws.buyer.credential))
        .send({ mandate_id: mandateId });
      expect(paid.body.intent).toMatchObject({
        status: 'declined',
        decline_code: 'mandate_kind_mismatch',
      });
    });

    it('two sellers racing for one billing cycle: exactly one charge', async () => {
      setNow(ist(2027, 3, 1, 8, 0));
      const other = await seedWorkspace(t);
      const mandateId = await recurringMandate({ payees: [ws.seller.id, other.seller.id] });
      const results = await Promise.all([
        schedule(mandateId, { amount_paise: 1000 }),
        schedule(mandateId, { amount_paise: 1000 }, other.seller.credential),
        schedule(mandateId, { amount_paise: 1000 }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
      const n = await one<{ n: number }>(
        `SELECT count(*)::int AS n FROM recurring_charges WHERE mandate_id = $1`,
        [mandateId],
      );
      expect(n.n).toBe(1);
    });

    it('a revoked mandate cancels its scheduled charges before any debit', async () => {
      setNow(ist(2027, 4, 1, 8, 0));
      const mandateId = await recurringMandate();
      const a = await schedule(mandateId, { amount_paise: 1000 });
      await t
        .get(MandatesService)
        .revoke(ws.workspaceId, mandateId, { type: 'person', id: ws.personId });
      await svc.runDue();
      const c = await charge(a.body.id);
      expect(c).toMatchObject({ status: 'cancelled', failure_code: 'mandate_revoked' });
      setNow(ist(2027, 4, 2, 8, 1));
      await svc.runDue();
      expect(await intentsOf(a.body.id)).toBe(0);
    });

    it('delivers the pre-debit notice to the buyer’s webhook endpoint, signed, with the amount and how to cancel', async () => {
      const got: { body: string; headers: http.IncomingHttpHeaders }[] = [];
      const server = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          got.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
          res.writeHead(200).end('ok');
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        setNow(ist(2027, 5, 1, 8, 0));
        const endpoint = await request(t.url)
          .post('/v1/webhooks/endpoints')
          .set(bearer(ws.apiKey))
          .send({
            url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
            event_types: ['recurring.pre_debit_notice'],
          });
        expect(endpoint.status).toBe(201);
        const mandateId = await recurringMandate();
        const res = await schedule(mandateId, { amount_paise: 43_210 });
        expect(res.status).toBe(201);
        await t.get(WebhookDispatcher).dispatchPending();
        const deadline = Date.now() + 10_000;
        while (got.length === 0 && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 25));
        }
        expect(got).toHaveLength(1);
        expect(got[0].headers['webhook-signature']).toMatch(/^v1,/);
        expect(JSON.parse(got[0].body)).toMatchObject({
          type: 'recurring.pre_debit_notice',
          data: {
            charge_id: res.body.id,
            amount_paise: 43_210,
            currency: 'INR',
            debit_at: res.body.debit_at,
            cancel: { url: `${t.config.appUrl}/autopay/charges/${res.body.id}/cancel` },
          },
        });
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });
  });
}
