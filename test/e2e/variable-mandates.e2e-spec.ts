import request from 'supertest';

import { csrfFieldOf, signIn } from '../factories/app-session.factory';
import { bearer } from '../factories/intent.factory';
import { startApp, TestApp } from '../support/app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * Variable-amount recurring mandates (RBI E-Mandate Framework 2026: a customer-set maximum): the
 * agent proposes a maximum per debit, the person may lower it on the authorisation page, and a
 * charge above the authorised maximum is refused before any notice; `as_presented` mandates have
 * no one-debit-per-cycle rule, but each debit still has its own 24 h pre-debit notice.
 */
describe('variable recurring mandates', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  const DAY = 86_400_000;
  const HOUR = 3_600_000;

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

  async function propose(cycle: string, capPaise: number): Promise<string> {
    const res = await request(t.url)
      .post('/v1/pay/mandates')
      .set(bearer(ws.buyer.credential))
      .send({
        kind: 'recurring',
        recurring: { billing_cycle: cycle },
        per_payment_cap_paise: capPaise,
        payee_agent_ids: [ws.seller.id],
        valid_until: new Date(t.clock.now().getTime() + 60 * DAY).toISOString(),
        description: 'Electricity bill',
      });
    expect(res.status).toBe(201);
    expect(res.body.recurring).toMatchObject({
      billing_cycle: cycle,
      max_per_debit_paise: capPaise,
      proposed_max_per_debit_paise: capPaise,
    });
    return res.body.id as string;
  }

  /** The person authorises on the page, typing a maximum (rupees); returns the redirect. */
  async function authoriseWith(mandateId: string, maxPerDebit: string) {
    const session = await signIn(t, ws.email, ws.password);
    const page = await request(t.url)
      .get(`/app/mandates/${mandateId}/authorize`)
      .set('Cookie', session.cookie);
    expect(page.status).toBe(200);
    const res = await request(t.url)
      .post(`/app/mandates/${mandateId}/authorize`)
      .set('Cookie', session.cookie)
      .type('form')
      // confirm=yes: the confirmation step's field (a recurring mandate needs it to be authorised).
      .send({ _csrf: csrfFieldOf(page.text), max_per_debit: maxPerDebit, confirm: 'yes' });
    expect(res.status).toBe(303);
    return { location: res.headers.location, session };
  }

  const statusOf = async (id: string) =>
    (await one<{ status: string }>(`SELECT status FROM mandates WHERE id = $1`, [id])).status;

  const schedule = (mandateId: string, amountPaise: number, key?: string) => {
    const r = request(t.url)
      .post(`/v1/pay/mandates/${mandateId}/charges`)
      .set(bearer(ws.seller.credential));
    return (key ? r.set('Idempotency-Key', key) : r).send({
      amount_paise: amountPaise,
      description: 'Bill',
    });
  };

  const count = async (sql: string, params: unknown[]) => (await one<{ n: number }>(sql, params)).n;

  it('the person lowers the proposed maximum; a charge above it is refused before any notice, one at it is accepted', async () => {
    const mandateId = await propose('monthly', 500_000);
    const session = await signIn(t, ws.email, ws.password);
    const page = await request(t.url)
      .get(`/app/mandates/${mandateId}/authorize`)
      .set('Cookie', session.cookie);
    expect(page.text).toMatch(
      /<input id="max_per_debit" name="max_per_debit" type="number"[^>]*min="1" max="5000.00"[^>]*value="5000.00"/,
    );

    // Clear errors, nothing changed: above the proposal, below ₹1, not a number.
    for (const [typed, error, words] of [
      ['6000', 'max_above_proposal', 'cannot be more than your agent asked for'],
      ['0.50', 'max_too_low', 'at least ₹1'],
      ['lots', 'max_not_a_number', 'amount in rupees'],
    ]) {
      const r = await authoriseWith(mandateId, typed);
      expect(r.location).toBe(`/app/mandates/${mandateId}/authorize?error=${error}`);
      const shown = await request(t.url).get(r.location).set('Cookie', r.session.cookie);
      expect(shown.text).toContain(words);
      expect(await statusOf(mandateId)).toBe('pending_authorisation');
    }

    const ok = await authoriseWith(mandateId, '1,250.50');
    expect(ok.location).toBe(`/app/mandates/${mandateId}/authorize`);
    expect(await statusOf(mandateId)).toBe('active');
    const m = await request(t.url)
      .get(`/v1/pay/mandates/${mandateId}`)
      .set(bearer(ws.buyer.credential));
    expect(m.body).toMatchObject({
      per_payment_cap_paise: 125_050,
      recurring: { max_per_debit_paise: 125_050, proposed_max_per_debit_paise: 500_000 },
    });

    const above = await schedule(mandateId, 125_051, 'above-1');
    expect(above.status).toBe(400);
    expect(above.body.error).toMatchObject({
      code: 'mandate_cap_exceeded',
      param: '$.amount_paise',
    });
    expect(above.body.error.message).toContain('the most the person authorised');
    expect(
      await count(`SELECT count(*)::int AS n FROM recurring_charges WHERE mandate_id = $1`, [
        mandateId,
      ]),
    ).toBe(0);
    expect(
      await count(
        `SELECT count(*)::int AS n FROM outbox_events WHERE type = 'recurring.pre_debit_notice' AND payload->'data'->>'mandate_id' = $1`,
        [mandateId],
      ),
    ).toBe(0);

    const at = await schedule(mandateId, 125_050, 'at-1');
    expect(at.status).toBe(201);
    expect(
      await count(
        `SELECT count(*)::int AS n FROM outbox_events WHERE type = 'recurring.pre_debit_notice' AND subject_id = $1`,
        [at.body.id],
      ),
    ).toBe(1);
  });

  it('as_presented: two debits in what a fixed cycle would make one, each with its own 24 h notice; a fixed cycle still refuses the second', async () => {
    const presented = await propose('as_presented', 100_000);
    await authoriseWith(presented, '1000');
    const first = await schedule(presented, 40_000, 'ap-1');
    expect(first.status).toBe(201);
    expect(first.body.billing_cycle.index).toBeNull();
    t.clock.advance(2 * HOUR);
    try {
      const second = await schedule(presented, 60_000, 'ap-2');
      expect(second.status).toBe(201);
      for (const c of [first.body, second.body]) {
        expect(
          new Date(c.debit_at).getTime() - new Date(c.notice_at).getTime(),
        ).toBeGreaterThanOrEqual(24 * HOUR);
        expect(
          await count(
            `SELECT count(*)::int AS n FROM outbox_events WHERE type = 'recurring.pre_debit_notice' AND subject_id = $1`,
            [c.id],
          ),
        ).toBe(1);
      }
      expect(new Date(second.body.notice_at).getTime()).toBeGreaterThan(
        new Date(first.body.notice_at).getTime(),
      );
      // Neither took the other's place: both are live charges on the mandate.
      const live = await t.db.query<{ id: string; status: string }[]>(
        `SELECT id, status FROM recurring_charges WHERE mandate_id = $1 ORDER BY created_at`,
        [presented],
      );
      expect(live.map((c) => c.id)).toEqual([first.body.id, second.body.id]);
      expect(live.every((c) => ['scheduled', 'awaiting_authorisation'].includes(c.status))).toBe(
        true,
      );
    } finally {
      t.clock.reset();
    }

    const monthly = await propose('monthly', 100_000);
    await authoriseWith(monthly, '1000');
    expect((await schedule(monthly, 40_000, 'm-1')).status).toBe(201);
    const again = await schedule(monthly, 60_000, 'm-2');
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('cycle_already_charged');
  });
});
