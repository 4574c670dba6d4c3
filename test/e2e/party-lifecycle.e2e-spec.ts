import { randomUUID } from 'node:crypto';

import request from 'supertest';

import { ApprovalsService } from '../../src/approvals/approvals.service';
import { MandatesService } from '../../src/mandates/mandates.service';
import { PersonalDataService } from '../../src/personal-data/personal-data.service';
import { AutopayNotices } from '../../src/recurring/autopay-notices';
import { RecurringCharge } from '../../src/recurring/recurring-charge.entity';
import { RecurringChargesService } from '../../src/recurring/recurring-charges.service';
import type { SignedInPerson } from '../../src/web/signed-in-person';
import { bearer } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { insertToken } from '../factories/payment-fixtures';
import { listTeaAndBiscuits, openTeaSession } from '../factories/tea-checkout.factory';
import { startApp, TestApp } from '../support/app';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';
import { PlatformHost, platformProfile, startPlatformHost } from '../support/ucp-platform';
import { expectValidUcp } from '../support/ucp-schema';

/**
 * A party's lifecycle (docs/architecture.md "Party lifecycle"): every payment source against a
 * seller or buyer that is not active — quote paid by an agent, the hosted page (view, start,
 * complete), an ACP or UCP checkout complete (and a new ACP or UCP session), a payment a person
 * approves later, an AutoPay debit — is refused `seller_unavailable` / `buyer_unavailable` with
 * nothing moved (Reserve Pay: party-lifecycle-gateway.e2e-spec.ts); closing a workspace
 * (the real erase of its last person) cancels what was open and tells the counterparty.
 */
describe('party lifecycle (HTTP)', () => {
  let t: TestApp;
  const HOUR = 3_600_000;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());
  afterEach(() => t.clock.reset());

  const idem = () => ({ 'Idempotency-Key': `idem-${randomUUID()}` });
  const one = async <T>(sql: string, params: unknown[] = []): Promise<T> =>
    (await t.db.query<T[]>(sql, params))[0];
  const count = async (sql: string, params: unknown[]) =>
    (await one<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params)).n;

  /** The seller workspace's last person erases their data: the workspace closes. */
  async function closeByErasure(ws: SeededWorkspace): Promise<void> {
    const person: SignedInPerson = {
      personId: ws.personId,
      workspaceId: ws.workspaceId,
      workspaceName: 'Test workspace',
      workspaceKind: 'standard',
      email: ws.email,
      name: 'Test Person',
      sessionId: 'none',
      csrfToken: 'none',
    };
    const outcome = await t.get(PersonalDataService).erase(person);
    expect(outcome.workspaceClosed).toBe(true);
  }

  const suspend = (ws: SeededWorkspace) =>
    t.db.query(`UPDATE workspaces SET status = 'suspended' WHERE id = $1`, [ws.workspaceId]);
  const reinstate = (ws: SeededWorkspace) =>
    t.db.query(`UPDATE workspaces SET status = 'active' WHERE id = $1`, [ws.workspaceId]);

  /** A free-form quote from the seller of `s` to the buyer agent of `b`: its id. */
  async function quote(s: SeededWorkspace, b: SeededWorkspace, amountPaise: number) {
    const res = await request(t.url)
      .post('/v1/pay/quotes')
      .set(bearer(s.seller.credential))
      .send({
        buyer_agent_id: b.buyer.id,
        category: 'services.consulting',
        items: [{ name: 'Consultation', unit_paise: amountPaise }],
      });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  const payQuote = (quoteId: string, b: SeededWorkspace, mandateId: string) =>
    request(t.url)
      .post(`/v1/pay/quotes/${quoteId}/pay`)
      .set({ ...bearer(b.buyer.credential), ...idem() })
      .send({ mandate_id: mandateId });

  const publicPay = (quoteId: string) => `/v1/public/pay/quotes/${quoteId}`;

  /** Money that moved to or from a workspace: settled or processing intents. */
  const moved = (workspaceId: string) =>
    count(
      `payment_intents WHERE (seller_workspace_id = $1 OR buyer_workspace_id = $1)
         AND status IN ('settled', 'processing')`,
      [workspaceId],
    );

  async function partyClosedEvents(to: SeededWorkspace, closed: SeededWorkspace) {
    return t.db.query<{ agent_id: string; payload: { data: Record<string, unknown> } }[]>(
      `SELECT agent_id, payload FROM outbox_events
        WHERE type = 'party.closed' AND workspace_id = $1 AND subject_id = $2`,
      [to.workspaceId, closed.workspaceId],
    );
  }

  it('records the states explicitly: active by default, closed and disabled after erasure', async () => {
    const s = await seedWorkspace(t);
    expect(await one(`SELECT status FROM workspaces WHERE id = $1`, [s.workspaceId])).toEqual({
      status: 'active',
    });
    await closeByErasure(s);
    expect(
      await one(`SELECT status, erased_at IS NOT NULL AS erased FROM workspaces WHERE id = $1`, [
        s.workspaceId,
      ]),
    ).toEqual({ status: 'closed', erased: true });
    const agents = await t.db.query<{ status: string; disabled: boolean }[]>(
      `SELECT status, disabled_at IS NOT NULL AS disabled FROM agents WHERE workspace_id = $1`,
      [s.workspaceId],
    );
    expect(agents).toHaveLength(2);
    expect(agents.every((a) => a.status === 'disabled' && a.disabled)).toBe(true);
    await expect(
      t.db.query(`UPDATE workspaces SET status = 'erased' WHERE id = $1`, [s.workspaceId]),
    ).rejects.toThrow(/workspaces_status_check/);
  });

  describe('a closed seller', () => {
    let s: SeededWorkspace;
    let b: SeededWorkspace;
    let mandateId: string;
    let openQuote: string;
    let waitingQuote: string;
    let waitingIntent: string;
    let approvalId: string;
    let pageQuote: string;
    let checkoutId: string;
    let sessionId: string;

    beforeAll(async () => {
      s = await seedWorkspace(t);
      b = await seedWorkspace(t);
      mandateId = await createMandate(t, { workspaceId: b.workspaceId, agentId: b.buyer.id });
      openQuote = await quote(s, b, 50_000);
      // Above the approval threshold: the payment waits for the buyer's person.
      waitingQuote = await quote(s, b, 300_000);
      const waiting = await payQuote(waitingQuote, b, mandateId);
      expect(waiting.status).toBe(200);
      expect(waiting.body.intent.status).toBe('requires_approval');
      waitingIntent = waiting.body.intent.id;
      approvalId = waiting.body.intent.approval_id;
      pageQuote = await quote(s, b, 40_000);
      const started = await request(t.url)
        .post(`${publicPay(pageQuote)}/checkout`)
        .send({});
      expect(started.status).toBe(200);
      checkoutId = started.body.id;
      await listTeaAndBiscuits(t, s);
      sessionId = await openTeaSession(t, s);
      await closeByErasure(s);
    });

    it('cancels its open quotes, the payment waiting for a person and its checkout sessions', async () => {
      const quotes = await t.db.query<{ id: string; status: string }[]>(
        `SELECT id, status FROM quotes WHERE id = ANY($1) ORDER BY id`,
        [[openQuote, waitingQuote, pageQuote]],
      );
      expect(quotes.map((q) => q.status)).toEqual(['canceled', 'canceled', 'canceled']);
      expect(
        await one(`SELECT status, decline_code FROM payment_intents WHERE id = $1`, [
          waitingIntent,
        ]),
      ).toEqual({ status: 'declined', decline_code: 'seller_unavailable' });
      expect(await one(`SELECT status FROM approvals WHERE id = $1`, [approvalId])).toEqual({
        status: 'withdrawn',
      });
      const session = await one<{ status: string; messages: { code?: string }[] }>(
        `SELECT status, messages FROM checkout_sessions WHERE id = $1`,
        [sessionId],
      );
      expect(session.status).toBe('canceled');
      expect(session.messages[0].code).toBe('seller_unavailable');
    });

    it('tells the buyer by event, in words', async () => {
      const events = await partyClosedEvents(b, s);
      expect(events).toHaveLength(1);
      expect(events[0].agent_id).toBe(b.buyer.id);
      const ended = events[0].payload.data.ended as { kind: string; id: string; words: string }[];
      expect(ended.map((e) => e.id).sort()).toEqual(
        [openQuote, waitingQuote, pageQuote, waitingIntent].sort(),
      );
      expect(ended.every((e) => e.words.startsWith('The seller closed their account'))).toBe(true);
    });

    it('refuses every payment source, and nothing moves', async () => {
      // Quote paid by the buyer's agent: the quote was canceled by the closure.
      const byAgent = await payQuote(openQuote, b, mandateId);
      expect(byAgent.status).toBe(409);
      expect(byAgent.body.error.code).toBe('quote_canceled');
      // The hosted page: the view says why, start and complete refuse with the gate's code.
      const view = await request(t.url).get(publicPay(pageQuote)).expect(200);
      expect(view.body.payable).toBe(false);
      expect(view.body.reason).toBe(
        'The seller closed their account; no payment can be made to or from it.',
      );
      const start = await request(t.url)
        .post(`${publicPay(pageQuote)}/checkout`)
        .send({});
      expect(start.status).toBe(409);
      expect(start.body.error.code).toBe('seller_unavailable');
      const complete = await request(t.url)
        .post(`${publicPay(pageQuote)}/checkout/${checkoutId}/complete`)
        .send({ outcome: 'success' });
      expect(complete.status).toBe(409);
      expect(complete.body.error.code).toBe('seller_unavailable');
      // Nothing new: the closed seller's agent credential no longer signs in.
      const newQuote = await request(t.url)
        .post('/v1/pay/quotes')
        .set(bearer(s.seller.credential))
        .send({
          buyer_agent_id: b.buyer.id,
          category: 'services.consulting',
          items: [{ name: 'Consultation', unit_paise: 10_000 }],
        });
      expect(newQuote.status).toBe(401);
      // ACP: the seller's merchant key was revoked with the workspace.
      const acp = await request(t.url)
        .post(`/acp/checkout_sessions/${sessionId}/complete`)
        .set(acpHeaders(s.merchantKey, randomUUID()))
        .send({});
      expect(acp.status).toBe(401);
      // A payment a person approves later: the approval was withdrawn, nothing is paid.
      await t
        .get(ApprovalsService)
        .decide(b.workspaceId, approvalId, b.personId, 'approved')
        .catch(() => undefined);
      expect(await moved(s.workspaceId)).toBe(0);
      expect(
        await count(
          `rail_transfers r JOIN payment_intents i ON i.id = r.intent_id WHERE i.seller_workspace_id = $1`,
          [s.workspaceId],
        ),
      ).toBe(0);
    });
  });

  describe('a suspended seller (the gate in pay())', () => {
    let s: SeededWorkspace;
    let b: SeededWorkspace;
    let mandateId: string;

    beforeAll(async () => {
      s = await seedWorkspace(t);
      b = await seedWorkspace(t);
      mandateId = await createMandate(t, { workspaceId: b.workspaceId, agentId: b.buyer.id });
    });
    afterEach(() => reinstate(s));

    it('refuses a quote paid by an agent, then pays once reinstated', async () => {
      const q = await quote(s, b, 50_000);
      await suspend(s);
      const refused = await payQuote(q, b, mandateId);
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({
        code: 'seller_unavailable',
        message: "The seller's account is suspended; payments are paused until it is reinstated.",
      });
      expect(await count(`payment_intents WHERE source_id = $1`, [q])).toBe(0);
      expect(await one(`SELECT status FROM quotes WHERE id = $1`, [q])).toEqual({ status: 'open' });
      await reinstate(s);
      const paid = await payQuote(q, b, mandateId);
      expect(paid.status).toBe(200);
      expect(paid.body.intent.status).toBe('settled');
    });

    it('refuses the hosted page: not payable, start and complete refused', async () => {
      const q = await quote(s, b, 40_000);
      const started = await request(t.url)
        .post(`${publicPay(q)}/checkout`)
        .send({});
      expect(started.status).toBe(200);
      await suspend(s);
      const view = await request(t.url).get(publicPay(q)).expect(200);
      expect(view.body).toMatchObject({ payable: false });
      expect(view.body.reason).toMatch(/suspended/);
      const start = await request(t.url)
        .post(`${publicPay(q)}/checkout`)
        .send({});
      expect(start.status).toBe(409);
      expect(start.body.error.code).toBe('seller_unavailable');
      const complete = await request(t.url)
        .post(`${publicPay(q)}/checkout/${started.body.id}/complete`)
        .send({ outcome: 'success' });
      expect(complete.status).toBe(409);
      expect(complete.body.error.code).toBe('seller_unavailable');
      expect(
        await count(
          `payment_intents WHERE seller_workspace_id = $1 AND receipt_context->>'quote_id' = $2`,
          [s.workspaceId, q],
        ),
      ).toBe(0);
    });

    it('refuses an ACP checkout complete with the gate code; the token stays usable', async () => {
      await listTeaAndBiscuits(t, s);
      const sessionId = await openTeaSession(t, s);
      const buyerSide = {
        ...s,
        workspaceId: b.workspaceId,
        buyer: b.buyer,
        buyerKeyId: b.buyerKeyId,
      };
      const token = await insertToken(t, buyerSide, {
        sessionId,
        mandateId,
        maxAmountPaise: 92_500,
        merchantAgentId: s.seller.id,
      });
      await suspend(s);
      const res = await request(t.url)
        .post(`/acp/checkout_sessions/${sessionId}/complete`)
        .set(acpHeaders(s.merchantKey, randomUUID()))
        .send({
          payment_data: {
            handler_id: 'svc_upi_mandate',
            instrument: { type: 'svc_mandate', credential: { type: 'svc_delegated_token', token } },
          },
        });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('seller_unavailable');
      expect(await one(`SELECT status FROM delegated_tokens WHERE id = $1`, [token])).toEqual({
        status: 'usable',
      });
      expect(await one(`SELECT status FROM checkout_sessions WHERE id = $1`, [sessionId])).toEqual({
        status: 'ready_for_payment',
      });
      expect(await count(`payment_intents WHERE source_id = $1`, [sessionId])).toBe(0);
    });

    it('refuses a new quote from or to a non-active party', async () => {
      await suspend(s);
      const fromSuspended = await request(t.url)
        .post('/v1/pay/quotes')
        .set(bearer(s.seller.credential))
        .send({
          buyer_agent_id: b.buyer.id,
          category: 'services.consulting',
          items: [{ name: 'Consultation', unit_paise: 10_000 }],
        });
      expect(fromSuspended.status).toBe(409);
      expect(fromSuspended.body.error.code).toBe('seller_unavailable');
      await reinstate(s);
      await suspend(b);
      const toSuspended = await request(t.url)
        .post('/v1/pay/quotes')
        .set(bearer(s.seller.credential))
        .send({
          buyer_agent_id: b.buyer.id,
          category: 'services.consulting',
          items: [{ name: 'Consultation', unit_paise: 10_000 }],
        });
      expect(toSuspended.status).toBe(409);
      expect(toSuspended.body.error.code).toBe('buyer_unavailable');
      await reinstate(b);
      expect(
        await count(`quotes WHERE seller_workspace_id = $1 AND amount_paise = 10000`, [
          s.workspaceId,
        ]),
      ).toBe(0);
    });

    it('declines a payment a person approves after the seller was suspended', async () => {
      const q = await quote(s, b, 300_000);
      const waiting = await payQuote(q, b, mandateId);
      expect(waiting.body.intent.status).toBe('requires_approval');
      await suspend(s);
      await t
        .get(ApprovalsService)
        .decide(b.workspaceId, waiting.body.intent.approval_id, b.personId, 'approved');
      expect(
        await one(`SELECT status, decline_code FROM payment_intents WHERE id = $1`, [
          waiting.body.intent.id,
        ]),
      ).toEqual({ status: 'declined', decline_code: 'seller_unavailable' });
      expect(await one(`SELECT status FROM quotes WHERE id = $1`, [q])).toEqual({ status: 'open' });
    });
  });

  describe('checkout protocols (ACP and UCP) against a suspended party', () => {
    let host: PlatformHost;
    let s: SeededWorkspace;
    let b: SeededWorkspace;
    let mandateId: string;

    beforeAll(async () => {
      host = await startPlatformHost({ '/good': platformProfile() });
      s = await seedWorkspace(t);
      b = await seedWorkspace(t);
      mandateId = await createMandate(t, { workspaceId: b.workspaceId, agentId: b.buyer.id });
      await listTeaAndBiscuits(t, s);
    });
    afterAll(() => host.close());
    afterEach(async () => {
      await reinstate(s);
      await reinstate(b);
    });

    const ucpHeaders = () => ({
      Authorization: `Bearer ${s.merchantKey}`,
      'UCP-Agent': host.agent('/good'),
      'Idempotency-Key': randomUUID(),
    });
    const ucpCreate = () =>
      request(t.url)
        .post('/ucp/checkout-sessions')
        .set(ucpHeaders())
        .send({ line_items: [{ item: { id: 'tea' }, quantity: 1 }] });
    const sessionsOf = (ws: SeededWorkspace) =>
      count(`checkout_sessions WHERE seller_agent_id = $1`, [ws.seller.id]);
    /** A usable delegated token of b's buyer for this session of s's seller. */
    const tokenFor = (sessionId: string, maxAmountPaise: number) =>
      insertToken(
        t,
        { ...s, workspaceId: b.workspaceId, buyer: b.buyer, buyerKeyId: b.buyerKeyId },
        {
          sessionId,
          mandateId,
          maxAmountPaise,
          merchantAgentId: s.seller.id,
        },
      );
    function expectUcpRefusal(res: request.Response, code: string): void {
      expect(res.status).toBe(409);
      expectValidUcp('error', res.body);
      expect(res.body.ucp).toMatchObject({ status: 'error' });
      expect(res.body.messages).toEqual([
        expect.objectContaining({
          type: 'error',
          code,
          content: expect.stringMatching(/suspended/),
        }),
      ]);
    }

    it('refuses a new ACP or UCP session for a suspended seller; none is created until reinstated', async () => {
      const before = await sessionsOf(s);
      await suspend(s);
      const acp = await request(t.url)
        .post('/acp/checkout_sessions')
        .set(acpHeaders(s.merchantKey, randomUUID()))
        .send({ line_items: [{ id: 'tea', quantity: 1 }], currency: 'inr', capabilities: {} });
      expect(acp.status).toBe(409);
      expect(acp.body.code).toBe('seller_unavailable');
      expectUcpRefusal(await ucpCreate(), 'seller_unavailable');
      expect(await sessionsOf(s)).toBe(before);
      await reinstate(s);
      expect((await ucpCreate()).status).toBe(201);
      expect(await sessionsOf(s)).toBe(before + 1);
    });

    it('refuses a UCP complete for a suspended seller in UCP’s error shape; the token stays usable', async () => {
      const created = await ucpCreate();
      expect(created.status).toBe(201);
      const sessionId = created.body.id as string;
      const token = await tokenFor(sessionId, 45_000);
      await suspend(s);
      const res = await request(t.url)
        .post(`/ucp/checkout-sessions/${sessionId}/complete`)
        .set(ucpHeaders())
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
        });
      expectUcpRefusal(res, 'seller_unavailable');
      expect(await one(`SELECT status FROM delegated_tokens WHERE id = $1`, [token])).toEqual({
        status: 'usable',
      });
      expect(await one(`SELECT status FROM checkout_sessions WHERE id = $1`, [sessionId])).toEqual({
        status: 'ready_for_payment',
      });
      expect(await count(`payment_intents WHERE source_id = $1`, [sessionId])).toBe(0);
      expect(await moved(s.workspaceId)).toBe(0);
    });

    it('refuses an ACP complete for a suspended buyer: buyer_unavailable, nothing moves', async () => {
      const sessionId = await openTeaSession(t, s);
      const token = await tokenFor(sessionId, 92_500);
      await suspend(b);
      const res = await request(t.url)
        .post(`/acp/checkout_sessions/${sessionId}/complete`)
        .set(acpHeaders(s.merchantKey, randomUUID()))
        .send({
          payment_data: {
            handler_id: 'svc_upi_mandate',
            instrument: { type: 'svc_mandate', credential: { type: 'svc_delegated_token', token } },
          },
        });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('buyer_unavailable');
      expect(res.body.message).toBe(
        "The buyer's account is suspended; payments are paused until it is reinstated.",
      );
      expect(await one(`SELECT status FROM delegated_tokens WHERE id = $1`, [token])).toEqual({
        status: 'usable',
      });
      expect(await count(`payment_intents WHERE source_id = $1`, [sessionId])).toBe(0);
      expect(await moved(b.workspaceId)).toBe(0);
    });
  });

  describe('a closed buyer', () => {
    it('cancels the quotes addressed to it, tells the seller, and refuses a suspended buyer', async () => {
      const s = await seedWorkspace(t);
      const b = await seedWorkspace(t);
      const b2 = await seedWorkspace(t);
      const q = await quote(s, b, 50_000);
      await closeByErasure(b);
      expect(await one(`SELECT status FROM quotes WHERE id = $1`, [q])).toEqual({
        status: 'canceled',
      });
      const events = await partyClosedEvents(s, b);
      expect(events).toHaveLength(1);
      expect(events[0].agent_id).toBe(s.seller.id);
      expect(JSON.stringify(events[0].payload.data)).toContain('The buyer closed their account');
      // The gate's buyer side: a suspended buyer workspace cannot pay.
      const mandate2 = await createMandate(t, {
        workspaceId: b2.workspaceId,
        agentId: b2.buyer.id,
      });
      const q2 = await quote(s, b2, 50_000);
      await suspend(b2);
      const refused = await payQuote(q2, b2, mandate2);
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('buyer_unavailable');
      expect(await moved(b2.workspaceId)).toBe(0);
    });
  });

  describe('AutoPay debits', () => {
    /** An instant given on the IST wall clock. */
    const ist = (y: number, mo: number, d: number, h: number, mi = 0) =>
      new Date(Date.UTC(y, mo - 1, d, h, mi) - 330 * 60_000);
    function setNow(at: Date): void {
      t.clock.reset();
      t.clock.advance(at.getTime() - Date.now());
    }

    /** A recurring mandate of b's buyer to s's seller, and a first debit authorised: the charge id. */
    async function scheduledCharge(s: SeededWorkspace, b: SeededWorkspace): Promise<string> {
      const now = t.clock.now();
      const m = await request(t.url)
        .post('/v1/pay/mandates')
        .set(bearer(b.buyer.credential))
        .send({
          kind: 'recurring',
          recurring: { billing_cycle: 'daily' },
          per_payment_cap_paise: 2_000_000,
          payee_agent_ids: [s.seller.id],
          valid_until: new Date(now.getTime() + 60 * 24 * HOUR).toISOString(),
          description: 'Daily chai subscription',
        });
      expect(m.status).toBe(201);
      await t.get(MandatesService).authorise(b.workspaceId, m.body.id, b.personId);
      const c = await request(t.url)
        .post(`/v1/pay/mandates/${m.body.id}/charges`)
        .set({ ...bearer(s.seller.credential), ...idem() })
        .send({ description: 'Chai for a day', amount_paise: 150_000 });
      expect(c.status).toBe(201);
      await t
        .get(ApprovalsService)
        .decide(
          b.workspaceId,
          c.body.approval_id ??
            (
              await one<{ approval_id: string }>(
                `SELECT approval_id FROM recurring_charges WHERE id = $1`,
                [c.body.id],
              )
            ).approval_id,
          b.personId,
          'approved',
        );
      expect(await one(`SELECT status FROM recurring_charges WHERE id = $1`, [c.body.id])).toEqual({
        status: 'scheduled',
      });
      return c.body.id as string;
    }

    it('declines a due debit to a suspended seller, with no intent and the person told', async () => {
      setNow(ist(2026, 12, 1, 8, 0));
      const s = await seedWorkspace(t);
      const b = await seedWorkspace(t);
      const id = await scheduledCharge(s, b);
      await suspend(s);
      setNow(ist(2026, 12, 2, 8, 30));
      expect(await t.get(RecurringChargesService).attempt(id)).toBe('declined');
      expect(
        await one(`SELECT status, failure_code, intent_id FROM recurring_charges WHERE id = $1`, [
          id,
        ]),
      ).toEqual({ status: 'declined', failure_code: 'seller_unavailable', intent_id: null });
      expect(await count(`payment_intents WHERE source_id = $1`, [id])).toBe(0);
      expect(
        await count(`outbox_events WHERE type = 'recurring.post_debit_alert' AND subject_id = $1`, [
          id,
        ]),
      ).toBe(1);
    });

    it('cancels a scheduled debit when the seller closes; the buyer hears it and the person reads it', async () => {
      setNow(ist(2026, 12, 1, 8, 0));
      const s = await seedWorkspace(t);
      const b = await seedWorkspace(t);
      const id = await scheduledCharge(s, b);
      await closeByErasure(s);
      expect(
        await one(`SELECT status, failure_code FROM recurring_charges WHERE id = $1`, [id]),
      ).toEqual({ status: 'cancelled', failure_code: 'seller_unavailable' });
      const cancelled = await one<{ agent_id: string; payload: { data: { reason: string } } }>(
        `SELECT agent_id, payload FROM outbox_events WHERE type = 'recurring.charge_cancelled' AND subject_id = $1`,
        [id],
      );
      expect(cancelled.agent_id).toBe(b.buyer.id);
      expect(cancelled.payload.data.reason).toMatch(
        /^The seller closed their account; the debit of ₹1,500(\.00)? on .* will not happen$/,
      );
      const events = await partyClosedEvents(b, s);
      expect(JSON.stringify(events[0].payload.data)).toContain(id);
      // The person's notification on /app/autopay.
      const charge = await t.db.manager.findOneByOrFail(RecurringCharge, { id });
      const notes = await t.get(AutopayNotices).forPerson([charge]);
      const closed = notes.find((n) => n.kind === 'party_closed');
      expect(closed?.text.body).toMatch(
        /^This seller closed their account; the debit of .* on .* will not happen\. Nothing is debited\.$/,
      );
      // Due time comes: nothing is debited.
      setNow(ist(2026, 12, 2, 8, 30));
      expect(await t.get(RecurringChargesService).attempt(id)).toBe('skipped');
      expect(await count(`payment_intents WHERE source_id = $1`, [id])).toBe(0);
    });
  });
});
