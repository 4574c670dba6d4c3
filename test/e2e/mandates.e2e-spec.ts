import request from 'supertest';

import { AccountsService } from '../../src/accounts/accounts.service';
import { csrfFieldOf, signIn } from '../factories/app-session.factory';
import { startApp, TestApp } from '../support/app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

const HOUR = 3600_000;
const DAY = 24 * HOUR;

describe('Mandates (/v1/pay/mandates and the authorisation page)', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let other: SeededWorkspace;

  beforeAll(async () => {
    t = await startApp();
    ws = await seedWorkspace(t);
    other = await seedWorkspace(t);
  });
  afterAll(() => t.close());
  afterEach(() => t.clock.reset());

  const bearer = (secret: string) => ({ Authorization: `Bearer ${secret}` });
  const at = (msFromNow: number) => new Date(t.clock.now().getTime() + msFromNow).toISOString();
  const validBody = (over: Record<string, unknown> = {}) => ({
    buyer_agent_id: ws.buyer.id,
    per_payment_cap_paise: 500_000,
    payee_agent_ids: [ws.seller.id],
    valid_until: at(30 * DAY),
    rail: 'upi_reserve_pay',
    description: 'Groceries',
    ...over,
  });
  const create = (body: object, secret = ws.apiKey) =>
    request(t.url).post('/v1/pay/mandates').set(bearer(secret)).send(body);
  const row = async (id: string) =>
    (
      await t.db.query<
        {
          status: string;
          authorised_by: string | null;
          authorised_at: Date | null;
          revoked_at: Date | null;
        }[]
      >('SELECT status, authorised_by, authorised_at, revoked_at FROM mandates WHERE id = $1', [id])
    )[0];

  describe('POST /v1/pay/mandates', () => {
    it('creates a pending standing mandate for the named buyer agent with an API key', async () => {
      const res = await create(validBody());
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^mdt_/),
        object: 'mandate',
        buyer_agent_id: ws.buyer.id,
        kind: 'standing',
        rail: 'upi_reserve_pay',
        recurring: null,
        per_payment_cap_paise: 500_000,
        payee_agent_ids: [ws.seller.id],
        valid_from: expect.any(String),
        valid_until: expect.any(String),
        status: 'pending_authorisation',
        description: 'Groceries',
        authorization_url: `${t.url}/app/mandates/${res.body.id}/authorize`,
        authorised_at: null,
        created_at: expect.any(String),
      });
      const [db] = await t.db.query('SELECT * FROM mandates WHERE id = $1', [res.body.id]);
      expect(db).toMatchObject({
        workspace_id: ws.workspaceId,
        buyer_agent_id: ws.buyer.id,
        kind: 'standing',
        status: 'pending_authorisation',
        per_payment_cap_paise: '500000',
        payee_agent_ids: [ws.seller.id],
      });
    });

    it('lets a buyer agent credential create a mandate for itself; null payees mean any seller', async () => {
      const res = await create(
        validBody({ buyer_agent_id: undefined, payee_agent_ids: null, rail: 'upi_otm' }),
        ws.buyer.credential,
      );
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        buyer_agent_id: ws.buyer.id,
        payee_agent_ids: null,
        rail: 'upi_otm',
      });
    });

    it('refuses an agent credential acting for another agent, and a seller agent credential', async () => {
      const accounts = t.get(AccountsService);
      const second = await accounts.createAgent(
        ws.workspaceId,
        { name: 'Second buyer', role: 'buyer' },
        { type: 'person', id: ws.personId },
      );
      const forOther = await create(validBody({ buyer_agent_id: second.id }), ws.buyer.credential);
      expect(forOther.status).toBe(403);
      expect(forOther.body.error.code).toBe('forbidden');
      const seller = await create(validBody({ buyer_agent_id: undefined }), ws.seller.credential);
      expect(seller.status).toBe(403);
    });

    it('requires buyer_agent_id with an API key, of a buyer agent in the same workspace', async () => {
      const missing = await create(validBody({ buyer_agent_id: undefined }));
      expect(missing.status).toBe(400);
      expect(missing.body.error).toMatchObject({ code: 'missing', param: '$.buyer_agent_id' });
      const seller = await create(validBody({ buyer_agent_id: ws.seller.id }));
      expect(seller.status).toBe(400);
      expect(seller.body.error.param).toBe('$.buyer_agent_id');
      const foreign = await create(validBody({ buyer_agent_id: other.buyer.id }));
      expect(foreign.status).toBe(404);
      expect(foreign.body.error.param).toBe('$.buyer_agent_id');
    });

    it.each([
      ['zero cap', { per_payment_cap_paise: 0 }, '$.per_payment_cap_paise'],
      ['cap above ₹5 lakh', { per_payment_cap_paise: 50_000_001 }, '$.per_payment_cap_paise'],
      ['fractional cap', { per_payment_cap_paise: 100.5 }, '$.per_payment_cap_paise'],
      ['empty payee list', { payee_agent_ids: [] }, '$.payee_agent_ids'],
      ['payee id not an agent id', { payee_agent_ids: ['seller-1'] }, '$.payee_agent_ids'],
      ['valid_until in the past', { valid_until: 'PAST' }, '$.valid_until'],
      ['valid_until beyond a year', { valid_until: 'FAR' }, '$.valid_until'],
      ['valid_until not RFC 3339', { valid_until: '2030-01-01' }, '$.valid_until'],
      [
        'valid_until before valid_from',
        { valid_from: 'LATE', valid_until: 'SOON' },
        '$.valid_until',
      ],
      ['unknown rail', { rail: 'card' }, '$.rail'],
      ['description over 200', { description: 'x'.repeat(201) }, '$.description'],
      ['unknown field', { autopay: true }, '$.autopay'],
    ])('400 for %s', async (_name, over, param) => {
      const times: Record<string, string> = {
        PAST: at(-HOUR),
        FAR: at(366 * DAY),
        LATE: at(2 * DAY),
        SOON: at(DAY),
      };
      const body = Object.fromEntries(
        Object.entries(validBody(over)).map(([k, v]) => [
          k,
          typeof v === 'string' && times[v] ? times[v] : v,
        ]),
      );
      const res = await create(body);
      expect(res.status).toBe(400);
      expect(res.body.error.param).toBe(param);
    });

    it('400 for a payee that is not an existing seller agent', async () => {
      const buyerAsPayee = await create(
        validBody({ payee_agent_ids: [ws.seller.id, ws.buyer.id] }),
      );
      expect(buyerAsPayee.status).toBe(400);
      expect(buyerAsPayee.body.error.param).toBe('$.payee_agent_ids[1]');
      const unknown = await create(validBody({ payee_agent_ids: ['agt_doesnotexist000'] }));
      expect(unknown.status).toBe(400);
      expect(unknown.body.error.param).toBe('$.payee_agent_ids[0]');
    });

    it('accepts a seller of another workspace as payee', async () => {
      const res = await create(validBody({ payee_agent_ids: [other.seller.id] }));
      expect(res.status).toBe(201);
    });
  });

  describe('GET /v1/pay/mandates', () => {
    it('reads a mandate of the same workspace; another workspace gets 404', async () => {
      const { body: created } = await create(validBody());
      const mine = await request(t.url)
        .get(`/v1/pay/mandates/${created.id}`)
        .set(bearer(ws.apiKey));
      expect(mine.status).toBe(200);
      expect(mine.body).toEqual(created);
      const theirs = await request(t.url)
        .get(`/v1/pay/mandates/${created.id}`)
        .set(bearer(other.apiKey));
      expect(theirs.status).toBe(404);
      const theirAgent = await request(t.url)
        .get(`/v1/pay/mandates/${created.id}`)
        .set(bearer(other.buyer.credential));
      expect(theirAgent.status).toBe(404);
    });

    it('shows an agent credential only its own mandates', async () => {
      const accounts = t.get(AccountsService);
      const second = await accounts.createAgent(
        ws.workspaceId,
        { name: 'Another buyer', role: 'buyer' },
        { type: 'person', id: ws.personId },
      );
      const { body: theirs } = await create(validBody({ buyer_agent_id: second.id }));
      const { body: mine } = await create(validBody());
      const get = await request(t.url)
        .get(`/v1/pay/mandates/${theirs.id}`)
        .set(bearer(ws.buyer.credential));
      expect(get.status).toBe(404);
      const own = await request(t.url)
        .get(`/v1/pay/mandates/${mine.id}`)
        .set(bearer(ws.buyer.credential));
      expect(own.status).toBe(200);
      const list = await request(t.url)
        .get('/v1/pay/mandates?limit=100')
        .set(bearer(ws.buyer.credential));
      expect(list.status).toBe(200);
      expect(
        list.body.data.every((m: { buyer_agent_id: string }) => m.buyer_agent_id === ws.buyer.id),
      ).toBe(true);
      expect(list.body.data.map((m: { id: string }) => m.id)).toContain(mine.id);
      const otherFilter = await request(t.url)
        .get(`/v1/pay/mandates?buyer_agent_id=${second.id}`)
        .set(bearer(ws.buyer.credential));
      expect(otherFilter.body.data).toEqual([]);
    });

    it('lists newest first with filters and cursor pagination', async () => {
      const fresh = await seedWorkspace(t);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await create(
          { ...validBody({ buyer_agent_id: fresh.buyer.id, payee_agent_ids: null }) },
          fresh.apiKey,
        );
        ids.push(res.body.id);
      }
      const page1 = await request(t.url).get('/v1/pay/mandates?limit=2').set(bearer(fresh.apiKey));
      expect(page1.status).toBe(200);
      expect(page1.body).toMatchObject({ object: 'list', has_more: true });
      expect(page1.body.data.map((m: { id: string }) => m.id)).toEqual([ids[2], ids[1]]);
      const page2 = await request(t.url)
        .get(`/v1/pay/mandates?limit=2&starting_after=${page1.body.next_cursor}`)
        .set(bearer(fresh.apiKey));
      expect(page2.body.data.map((m: { id: string }) => m.id)).toEqual([ids[0]]);
      expect(page2.body.has_more).toBe(false);
      const byBuyer = await request(t.url)
        .get(`/v1/pay/mandates?buyer_agent_id=${fresh.buyer.id}&status=pending_authorisation`)
        .set(bearer(fresh.apiKey));
      expect(byBuyer.body.data).toHaveLength(3);
      const active = await request(t.url)
        .get('/v1/pay/mandates?status=active')
        .set(bearer(fresh.apiKey));
      expect(active.body.data).toEqual([]);
      const bad = await request(t.url)
        .get('/v1/pay/mandates?status=paused')
        .set(bearer(fresh.apiKey));
      expect(bad.status).toBe(400);
    });

    it('reports expired once valid_until has passed, without a write on read', async () => {
      const { body } = await create(validBody({ valid_until: at(HOUR) }));
      t.clock.advance(2 * HOUR);
      const get = await request(t.url).get(`/v1/pay/mandates/${body.id}`).set(bearer(ws.apiKey));
      expect(get.body.status).toBe('expired');
      expect((await row(body.id)).status).toBe('pending_authorisation');
      const expired = await request(t.url)
        .get('/v1/pay/mandates?status=expired&limit=100')
        .set(bearer(ws.apiKey));
      expect(expired.body.data.map((m: { id: string }) => m.id)).toContain(body.id);
      const pending = await request(t.url)
        .get('/v1/pay/mandates?status=pending_authorisation&limit=100')
        .set(bearer(ws.apiKey));
      expect(pending.body.data.map((m: { id: string }) => m.id)).not.toContain(body.id);
    });

    it('refuses a protocol key on /v1 mandates', async () => {
      const res = await request(t.url).get('/v1/pay/mandates').set(bearer(ws.buyerKey));
      expect(res.status).toBe(403);
    });
  });

  describe('authorisation page', () => {
    const pagePath = (id: string) => `/app/mandates/${id}/authorize`;

    it('shows the mandate to a signed-in person of its workspace, who authorises it with _csrf', async () => {
      const { body: mandate } = await create(validBody({ per_payment_cap_paise: 500_000 }));
      const session = await signIn(t, ws.email, ws.password);
      const page = await request(t.url).get(pagePath(mandate.id)).set('Cookie', session.cookie);
      expect(page.status).toBe(200);
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.text).toContain('Buyer assistant');
      expect(page.text).toContain('Chai Co');
      expect(page.text).toContain('₹5,000.00');
      expect(page.text).toContain('UPI Reserve Pay');
      expect(page.text).toContain('Groceries');
      expect(page.text).toContain('data-status="pending_authorisation"');

      const noCsrf = await request(t.url)
        .post(pagePath(mandate.id))
        .set('Cookie', session.cookie)
        .type('form')
        .send({});
      expect(noCsrf.status).toBe(403);
      expect((await row(mandate.id)).status).toBe('pending_authorisation');

      const ok = await request(t.url)
        .post(pagePath(mandate.id))
        .set('Cookie', session.cookie)
        .type('form')
        .send({ _csrf: csrfFieldOf(page.text) });
      expect(ok.status).toBe(303);
      expect(ok.headers.location).toBe(pagePath(mandate.id));
      const db = await row(mandate.id);
      expect(db.status).toBe('active');
      expect(db.authorised_by).toBe(ws.personId);
      expect(db.authorised_at).not.toBeNull();
      const [audit] = await t.db.query(
        `SELECT actor_type, actor_id FROM audit_events WHERE action = 'mandate.authorised' AND subject_id = $1`,
        [mandate.id],
      );
      expect(audit).toEqual({ actor_type: 'person', actor_id: ws.personId });

      const api = await request(t.url).get(`/v1/pay/mandates/${mandate.id}`).set(bearer(ws.apiKey));
      expect(api.body).toMatchObject({ status: 'active', authorised_at: expect.any(String) });

      // Resent (issue 40): the first authorisation's outcome page again, nothing changes.
      const again = await request(t.url)
        .post(pagePath(mandate.id))
        .set('Cookie', session.cookie)
        .type('form')
        .send({ _csrf: csrfFieldOf(page.text) });
      expect(again.status).toBe(303);
      expect(again.headers.location).toBe(pagePath(mandate.id));
      expect((await row(mandate.id)).authorised_at).toEqual(db.authorised_at);
    });

    it('says "any seller" when the mandate has no seller list, and declining revokes it', async () => {
      const { body: mandate } = await create(validBody({ payee_agent_ids: null }));
      const session = await signIn(t, ws.email, ws.password);
      const page = await request(t.url).get(pagePath(mandate.id)).set('Cookie', session.cookie);
      expect(page.text).toContain('any seller');
      const res = await request(t.url)
        .post(`/app/mandates/${mandate.id}/decline`)
        .set('Cookie', session.cookie)
        .type('form')
        .send({ _csrf: csrfFieldOf(page.text) });
      expect(res.status).toBe(303);
      const db = await row(mandate.id);
      expect(db.status).toBe('revoked');
      expect(db.revoked_at).not.toBeNull();
    });

    it('is a 404 for a person of another workspace', async () => {
      const { body: mandate } = await create(validBody());
      const stranger = await signIn(t, other.email, other.password);
      const page = await request(t.url).get(pagePath(mandate.id)).set('Cookie', stranger.cookie);
      expect(page.status).toBe(404);
      const home = await request(t.url).get('/app').set('Cookie', stranger.cookie);
      const post = await request(t.url)
        .post(pagePath(mandate.id))
        .set('Cookie', stranger.cookie)
        .type('form')
        .send({ _csrf: csrfFieldOf(home.text) });
      expect(post.status).toBe(404);
      expect((await row(mandate.id)).status).toBe('pending_authorisation');
    });

    it('does not sign anyone in with a bearer credential', async () => {
      const { body: mandate } = await create(validBody());
      for (const secret of [ws.apiKey, ws.buyer.credential, ws.buyerKey]) {
        const page = await request(t.url).get(pagePath(mandate.id)).set(bearer(secret));
        expect(page.status).toBe(303);
        expect(page.headers.location).toMatch(/^\/app\/login\?next=/);
        const post = await request(t.url)
          .post(pagePath(mandate.id))
          .set(bearer(secret))
          .type('form')
          .send({});
        expect(post.status).toBe(401);
      }
      expect((await row(mandate.id)).status).toBe('pending_authorisation');
    });

    it('cannot authorise a mandate whose validity has passed, and persists the expiry', async () => {
      const { body: mandate } = await create(validBody({ valid_until: at(HOUR) }));
      const session = await signIn(t, ws.email, ws.password);
      const page = await request(t.url).get(pagePath(mandate.id)).set('Cookie', session.cookie);
      t.clock.advance(2 * HOUR);
      const expiredPage = await request(t.url)
        .get(pagePath(mandate.id))
        .set('Cookie', session.cookie);
      expect(expiredPage.text).toContain('data-status="expired"');
      expect(expiredPage.text).not.toContain('>Authorise</button>');
      const res = await request(t.url)
        .post(pagePath(mandate.id))
        .set('Cookie', session.cookie)
        .type('form')
        .send({ _csrf: csrfFieldOf(page.text) });
      expect(res.status).toBe(400);
      expect((await row(mandate.id)).status).toBe('expired');
    });
  });
});
