import request from 'supertest';

import { QUEUES } from '../../src/common/queues/queues';
import { OperatorsService } from '../../src/ops/operators.service';
import { SandboxService } from '../../src/sandbox/sandbox.service';
import { signIn } from '../factories/app-session.factory';
import { startApp, TestApp } from '../support/app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * The queue dashboard (Bull Board) at /app/ops/queues: a signed-in operator (role operator in an
 * operator workspace) sees its page, its API and its files; everyone else, whatever they hold,
 * gets the same 404 page as any unknown address under /app.
 */

const BASE = '/app/ops/queues';
const SYSTEM = { type: 'system' as const, id: 'test' };

describe('queue dashboard', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let operator: { email: string; password: string; personId: string; workspaceId: string };
  let operatorCookie: string;
  let memberCookie: string;

  beforeAll(async () => {
    t = await startApp({ runWorkers: false });
    ws = await seedWorkspace(t);
    const issued = await t
      .get(OperatorsService)
      .ensureOperator(
        { email: 'oncall@ops.test', name: 'On-call', workspaceName: 'Operators' },
        SYSTEM,
      );
    operator = { ...issued };
    operatorCookie = (await signIn(t, issued.email, issued.password)).cookie;
    memberCookie = (await signIn(t, ws.email, ws.password)).cookie;
  });
  afterAll(() => t.close());

  const sameOrigin = { 'Sec-Fetch-Site': 'same-origin' };

  /**
   * The answer is the app's 404 page, byte for byte and header for header (security policy, rate
   * limit headers, caching) as an address under /app that does not exist, asked the same way.
   */
  async function expectHidden(res: request.Response, cookie?: string): Promise<void> {
    const unknown = request(t.url).get('/app/no-such-page');
    const like = await (cookie ? unknown.set('Cookie', cookie) : unknown);
    const shape = (r: request.Response) => ({
      status: r.status,
      body: r.text,
      type: r.headers['content-type'] as unknown,
      csp: r.headers['content-security-policy'] as unknown,
      cache: r.headers['cache-control'] as unknown,
      rateLimited: r.headers['ratelimit-policy'] !== undefined,
      headers: Object.keys(r.headers)
        .filter(
          (h) => !['request-id', 'date', 'ratelimit-remaining', 'ratelimit-reset'].includes(h),
        )
        .sort(),
    });
    expect(shape(res)).toEqual(shape(like));
    expect(res.status).toBe(404);
    expect(res.text).toContain('There is no page at this address');
    expect(res.text).not.toMatch(/bull|queue|dashboard/i);
  }

  describe('an operator', () => {
    it('gets the dashboard page, its static files and its API', async () => {
      for (const path of [BASE, `${BASE}/`]) {
        const page = await request(t.url).get(path).set('Cookie', operatorCookie).expect(200);
        expect(page.headers['content-type']).toMatch(/text\/html/);
        expect(page.text).toContain(`<base href="${BASE}/" />`);
        expect(page.text).toContain('<title>Queues</title>');
        expect(page.headers['cache-control']).toBe('no-store');
        expect(page.headers['x-powered-by']).toBeUndefined();
        const csp = page.headers['content-security-policy'];
        expect(csp).toContain("base-uri 'self'");
        expect(csp).toContain("style-src 'self' 'unsafe-inline'");
        expect(csp).toContain("script-src 'self'");
        expect(csp).toContain("frame-ancestors 'none'");
      }
      const page = await request(t.url).get(BASE).set('Cookie', operatorCookie);
      const script = /<script defer src="(static\/js\/main\.[\w.]+\.js)"/.exec(page.text)![1];
      const js = await request(t.url).get(`${BASE}/${script}`).set('Cookie', operatorCookie);
      expect(js.status).toBe(200);
      expect(js.headers['content-type']).toMatch(/javascript/);

      const api = await request(t.url)
        .get(`${BASE}/api/queues?activeQueue=approvals&page=1&jobsPerPage=10`)
        .set('Cookie', operatorCookie)
        .expect(200);
      expect(api.headers['content-type']).toMatch(/application\/json/);
      const names = (api.body as { queues: { name: string }[] }).queues.map((q) => q.name);
      expect(names.sort()).toEqual(Object.values(QUEUES).sort());
    });

    it('can pause and resume a queue from the dashboard; each action is audited', async () => {
      const pause = await request(t.url)
        .put(`${BASE}/api/queues/maintenance/pause`)
        .set({ Cookie: operatorCookie, ...sameOrigin })
        .expect(200);
      expect(pause.headers['content-type']).toMatch(/application\/json/);
      const queues = await request(t.url)
        .get(`${BASE}/api/queues`)
        .set('Cookie', operatorCookie)
        .expect(200);
      const maintenance = (
        queues.body as { queues: { name: string; isPaused: boolean }[] }
      ).queues.find((q) => q.name === 'maintenance');
      expect(maintenance?.isPaused).toBe(true);
      await request(t.url)
        .put(`${BASE}/api/queues/maintenance/resume`)
        .set({ Cookie: operatorCookie, ...sameOrigin })
        .expect(200);
      const audit = await t.db.query<
        { workspace_id: string; actor_type: string; actor_id: string; data: unknown }[]
      >(
        `SELECT workspace_id, actor_type, actor_id, data FROM audit_events WHERE action = 'ops.queue_action' ORDER BY id`,
      );
      expect(audit).toEqual([
        {
          workspace_id: operator.workspaceId,
          actor_type: 'person',
          actor_id: operator.personId,
          data: { method: 'PUT', path: '/api/queues/maintenance/pause' },
        },
        {
          workspace_id: operator.workspaceId,
          actor_type: 'person',
          actor_id: operator.personId,
          data: { method: 'PUT', path: '/api/queues/maintenance/resume' },
        },
      ]);
    });

    it('cannot act from another site (fetch metadata or Origin): 403, nothing done', async () => {
      for (const headers of [
        { 'Sec-Fetch-Site': 'cross-site' },
        { 'Sec-Fetch-Site': 'same-site' },
        { Origin: 'https://evil.example' },
      ]) {
        const res = await request(t.url)
          .put(`${BASE}/api/queues/approvals/pause`)
          .set({ Cookie: operatorCookie, ...headers });
        expect(res.status).toBe(403);
        expect(res.text).toContain('cross_site_request');
      }
      const [{ n }] = await t.db.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM audit_events WHERE action = 'ops.queue_action' AND data->>'path' LIKE '%approvals%'`,
      );
      expect(n).toBe(0);
      const queues = await request(t.url).get(`${BASE}/api/queues`).set('Cookie', operatorCookie);
      const approvals = (
        queues.body as { queues: { name: string; isPaused: boolean }[] }
      ).queues.find((q) => q.name === 'approvals');
      expect(approvals?.isPaused).toBe(false);
    });

    it.each([
      ['POST', `${BASE}/api/queues/webhooks/add`],
      ['PATCH', `${BASE}/api/queues/approvals/1/update-data`],
      ['PUT', `${BASE}/api/queues/maintenance/empty`],
      ['PUT', `${BASE}/api/queues/maintenance/obliterate`],
    ])('is refused %s %s (adds, rewrites or drops work): 403', async (method, path) => {
      const agent = request(t.url);
      const res = await (
        method === 'POST'
          ? agent.post(path)
          : method === 'PATCH'
            ? agent.patch(path)
            : agent.put(path)
      )
        .set({ Cookie: operatorCookie, ...sameOrigin })
        .send({ name: 'x', data: {} });
      expect(res.status).toBe(403);
      expect(res.text).toContain('operation_not_allowed');
    });

    it('loses the dashboard when signed out', async () => {
      const session = await signIn(t, operator.email, operator.password);
      await request(t.url).get(BASE).set('Cookie', session.cookie).expect(200);
      const home = await request(t.url).get('/app').set('Cookie', session.cookie).expect(200);
      const csrf = /name="_csrf" value="([^"]+)"/.exec(home.text)![1];
      await request(t.url)
        .post('/app/logout')
        .set('Cookie', session.cookie)
        .type('form')
        .send({ _csrf: csrf })
        .expect(303);
      await expectHidden(
        await request(t.url).get(BASE).set('Cookie', session.cookie),
        session.cookie,
      );
    });
  });

  describe('nobody else reaches it', () => {
    const paths = [
      BASE,
      `${BASE}/`,
      `${BASE}/api/queues`,
      `${BASE}/static/css/x.css`,
      `${BASE}/queue/webhooks`,
    ];

    it.each(paths)('not signed in: %s is the app 404 page', async (path) => {
      await expectHidden(await request(t.url).get(path));
    });

    it.each(paths)(
      'a signed-in member of a customer workspace: %s is the app 404 page',
      async (path) => {
        await expectHidden(
          await request(t.url).get(path).set('Cookie', memberCookie),
          memberCookie,
        );
      },
    );

    it('a member cannot act either, even from the same origin', async () => {
      const res = await request(t.url)
        .put(`${BASE}/api/queues/maintenance/pause`)
        .set({ Cookie: memberCookie, ...sameOrigin });
      expect(res.status).toBe(404);
      expect(res.text).toContain('There is no page at this address');
    });

    it('an API key, an agent credential or a protocol key: the app 404 page, with or without an operator session', async () => {
      for (const credential of [ws.apiKey, ws.seller.credential, ws.merchantKey]) {
        for (const cookie of [undefined, operatorCookie]) {
          const req = request(t.url)
            .get(`${BASE}/api/queues`)
            .set('Authorization', `Bearer ${credential}`);
          await expectHidden(await (cookie ? req.set('Cookie', cookie) : req), cookie);
        }
      }
    });

    it('needs both: an operator role in a customer workspace, or a member of the operator workspace, is refused', async () => {
      await t.db.query(`UPDATE persons SET role = 'operator' WHERE id = $1`, [ws.personId]);
      await expectHidden(await request(t.url).get(BASE).set('Cookie', memberCookie), memberCookie);
      await t.db.query(`UPDATE persons SET role = 'member' WHERE id = $1`, [ws.personId]);

      const colleague = await t
        .get(OperatorsService)
        .ensureOperator(
          { email: 'colleague@ops.test', name: 'Colleague', workspaceName: 'Operators' },
          SYSTEM,
        );
      expect(colleague.workspaceId).toBe(operator.workspaceId);
      const cookie = (await signIn(t, colleague.email, colleague.password)).cookie;
      await request(t.url).get(BASE).set('Cookie', cookie).expect(200);
      await t.db.query(`UPDATE persons SET role = 'member' WHERE id = $1`, [colleague.personId]);
      await expectHidden(await request(t.url).get(BASE).set('Cookie', cookie), cookie);
    });

    it('the database refuses an unknown role or workspace kind', async () => {
      await expect(
        t.db.query(`UPDATE persons SET role = 'admin' WHERE id = $1`, [ws.personId]),
      ).rejects.toThrow(/persons_role_chk/);
      await expect(
        t.db.query(`UPDATE workspaces SET kind = 'root' WHERE id = $1`, [ws.workspaceId]),
      ).rejects.toThrow(/workspaces_kind_chk/);
    });

    it('a customer email is never turned into an operator', async () => {
      await expect(
        t
          .get(OperatorsService)
          .ensureOperator({ email: ws.email, name: 'x', workspaceName: 'Operators' }, SYSTEM),
      ).rejects.toThrow(/not an operator/);
      const [row] = await t.db.query<{ role: string }[]>('SELECT role FROM persons WHERE id = $1', [
        ws.personId,
      ]);
      expect(row.role).toBe('member');
    });
  });

  describe('the sandbox operator', () => {
    it('is created by the sandbox, whose printed sign-in leads to the dashboard', async () => {
      const sandbox = await t.get(SandboxService).bootstrap();
      expect(sandbox.operator.email).toBe('ops@sandbox.local');
      const [row] = await t.db.query<{ role: string; kind: string; name: string }[]>(
        `SELECT p.role, w.kind, w.name FROM persons p JOIN workspaces w ON w.id = p.workspace_id WHERE p.email = $1`,
        [sandbox.operator.email],
      );
      expect(row).toEqual({ role: 'operator', kind: 'operator', name: 'Operators' });
      // Sign in through the printed link: the form posts `next` back and lands on the dashboard.
      const signInUrl = new URL(sandbox.operator.sign_in_url);
      expect(signInUrl.pathname).toBe('/app/login');
      expect(signInUrl.searchParams.get('next')).toBe(BASE);
      const cookie = (await signIn(t, sandbox.operator.email, sandbox.operator.password)).cookie;
      await request(t.url).get(BASE).set('Cookie', cookie).expect(200);

      // Run again: same person, fresh password, the old one and its sessions stop working.
      const again = await t.get(SandboxService).bootstrap();
      expect(again.operator.password).not.toBe(sandbox.operator.password);
      await expectHidden(await request(t.url).get(BASE).set('Cookie', cookie), cookie);
      await expect(signIn(t, sandbox.operator.email, sandbox.operator.password)).rejects.toThrow();
      const [{ n }] = await t.db.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM persons WHERE email = 'ops@sandbox.local'`,
      );
      expect(n).toBe(1);
    });
  });
});
