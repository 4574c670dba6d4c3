import request from 'supertest';

import { insertPerson } from '../../src/accounts/accounts.repository';
import { hashPassword } from '../../src/common/crypto/secrets';
import { newId, randomToken } from '../../src/common/ids';
import { OperatorsService } from '../../src/ops/operators.service';
import { AppSignupService } from '../../src/web/app-signup.service';
import { AppSession, csrfFieldOf, signIn } from '../factories/app-session.factory';
import { startApp, TestApp } from '../support/app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

const SYSTEM = { type: 'system' as const, id: 'test' };
const HOUR = 3600_000;

/**
 * The breach register (docs/personal-data.md "Breach register"; src/breaches) over HTTP on real
 * Postgres: only operators reach /app/ops/breaches (everyone else the app's 404), an operator
 * records a breach touching one whole workspace and two chosen persons, sends the notices (outbox
 * rows to the affected workspaces' webhooks only, and each affected person, only they, reads it on
 * /app/notices), the Board's 72-hour clock with the service clock moved either side of the
 * deadline, the report as a page and as JSON, and every step in the audit trail.
 */
describe('breach register', () => {
  let t: TestApp;
  let whole: SeededWorkspace; // every person of it is affected
  let chosen: SeededWorkspace; // only its person, named by id
  let bystander: SeededWorkspace; // not affected
  let colleagueId: string; // a second person of `whole`
  let noAgent: { personId: string; workspaceId: string; email: string; password: string };
  let operator: AppSession;
  let operatorLogin: { email: string; password: string };
  let operatorWorkspaceId: string;
  let breachId: string;
  let awareAt: Date;

  beforeAll(async () => {
    t = await startApp();
    whole = await seedWorkspace(t);
    chosen = await seedWorkspace(t);
    bystander = await seedWorkspace(t);
    colleagueId = newId('per');
    await insertPerson(t.db.manager, {
      id: colleagueId,
      workspaceId: whole.workspaceId,
      email: `colleague-${randomToken(8).toLowerCase()}@example.test`,
      name: 'Colleague',
      passwordHash: await hashPassword(`pw-${randomToken(12)}`),
    });
    const password = `pw-${randomToken(16)}`;
    const email = `solo-${randomToken(8).toLowerCase()}@example.test`;
    const signup = await t.get(AppSignupService).signUp({
      workspaceName: 'Solo',
      name: 'Solo Person',
      email,
      password,
    });
    noAgent = {
      personId: signup.session.person.personId,
      workspaceId: signup.session.person.workspaceId,
      email,
      password,
    };
    const issued = await t
      .get(OperatorsService)
      .ensureOperator(
        { email: 'privacy@ops.test', name: 'Privacy', workspaceName: 'Operators' },
        SYSTEM,
      );
    operatorWorkspaceId = issued.workspaceId;
    operatorLogin = { email: issued.email, password: issued.password };
    operator = await signIn(t, issued.email, issued.password);
  });

  /** Moves the service clock by ms; sessions last 12 h, so the operator signs in again. */
  const advance = async (ms: number) => {
    t.clock.advance(ms);
    operator = await signIn(t, operatorLogin.email, operatorLogin.password);
  };
  afterAll(async () => {
    t.clock.reset();
    await t?.close();
  });

  const page = (path: string, session: AppSession = operator) =>
    request(t.url).get(path).set('Cookie', session.cookie);

  const post = async (path: string, form: Record<string, string>, from = '/app/ops/breaches') => {
    const csrf = csrfFieldOf((await page(from)).text);
    return request(t.url)
      .post(path)
      .set('Cookie', operator.cookie)
      .type('form')
      .send({ _csrf: csrf, ...form });
  };

  it('is a 404 for anyone but a signed-in operator, and a credential is never a way in', async () => {
    expect((await request(t.url).get('/app/ops/breaches')).status).toBe(404);
    const person = await signIn(t, whole.email, whole.password);
    const refused = await page('/app/ops/breaches', person);
    expect(refused.status).toBe(404);
    expect(refused.text).not.toContain('Breach register');
    const posted = await request(t.url)
      .post('/app/ops/breaches')
      .set('Cookie', person.cookie)
      .type('form')
      .send({ _csrf: 'x', summary: 'x' });
    expect(posted.status).toBe(404);
    const withKey = await page('/app/ops/breaches').set('Authorization', `Bearer ${whole.apiKey}`);
    expect(withKey.status).toBe(404);

    const res = await page('/app/ops/breaches');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toContain('no-store');
    expect(res.text).toContain('Breach register');
    expect(res.text).toContain('id="no-breaches"');
  });

  it('refuses a form without the CSRF token, and unknown ids', async () => {
    const noCsrf = await request(t.url)
      .post('/app/ops/breaches')
      .set('Cookie', operator.cookie)
      .type('form')
      .send({ summary: 'x' });
    expect(noCsrf.status).toBe(403);
    const unknown = await post('/app/ops/breaches', {
      ...facts(new Date(t.clock.now().getTime() - HOUR)),
      person_ids: 'per_doesnotexist',
    });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain('per_doesnotexist');
    expect(await t.db.query('SELECT 1 FROM personal_data_breaches')).toHaveLength(0);
  });

  function facts(aware: Date): Record<string, string> {
    return {
      summary: 'A copy of the sign-in database was left readable on a public file share.',
      extent: 'About 1,200 accounts; the copy was downloaded twice.',
      location: 'Backup storage bucket, Mumbai region',
      // datetime-local, read as IST: 2 hours before awareness.
      occurred_at: new Date(aware.getTime() - 2 * HOUR + 5.5 * HOUR).toISOString().slice(0, 16),
      aware_at: aware.toISOString(),
      data_categories: 'Your name, email address and the hash of your password.',
      likely_consequences: 'Someone may send you emails pretending to be us.',
      mitigation: 'We closed the share, reset every password and are watching for misuse.',
      person_actions: 'Choose a new password when you next sign in; ignore emails asking for it.',
    };
  }

  it('records a breach: who it touches, when it happened and when we became aware', async () => {
    awareAt = new Date(Math.floor((t.clock.now().getTime() - HOUR) / 60_000) * 60_000);
    const res = await post('/app/ops/breaches', {
      ...facts(awareAt),
      workspace_ids: whole.workspaceId,
      person_ids: `${chosen.personId}\n${noAgent.personId}`,
    });
    expect(res.status).toBe(303);
    breachId = /\/app\/ops\/breaches\/(pdb_\w+)$/.exec(res.headers.location)![1];
    const [row] = await t.db.query<{ occurred_at: Date; aware_at: Date; scope: unknown }[]>(
      'SELECT occurred_at, aware_at, scope FROM personal_data_breaches WHERE id = $1',
      [breachId],
    );
    expect(row.aware_at.toISOString()).toBe(awareAt.toISOString());
    expect(row.occurred_at.toISOString()).toBe(
      new Date(awareAt.getTime() - 2 * HOUR).toISOString(),
    );
    expect(row.scope).toEqual({
      person_ids: [chosen.personId, noAgent.personId],
      workspace_ids: [whole.workspaceId],
    });
    const detail = await page(res.headers.location);
    expect(detail.status).toBe(200);
    expect(detail.text).toContain('data-clock="running"');
    expect(detail.text).toContain('70 h 59 min left');
    expect(detail.text).toContain('Not sent yet.');
    // The notice as the persons will read it, with the grievance contact.
    expect(detail.text).toContain('What you can do');
    expect(detail.text).toContain('grievance officer');
  });

  it('sends the notices once: to the affected persons only, in the app and through the outbox', async () => {
    const res = await post(
      `/app/ops/breaches/${breachId}/notices`,
      {},
      `/app/ops/breaches/${breachId}`,
    );
    expect(res.status).toBe(303);
    const notices = await t.db.query<
      { id: string; person_id: string; workspace_id: string; outbox_event_id: string | null }[]
    >(
      'SELECT id, person_id, workspace_id, outbox_event_id FROM breach_notices WHERE breach_id = $1',
      [breachId],
    );
    expect(notices.map((n) => n.person_id).sort()).toEqual(
      [whole.personId, colleagueId, chosen.personId, noAgent.personId].sort(),
    );
    const events = await t.db.query<
      {
        id: string;
        workspace_id: string;
        subject_id: string;
        payload: { data: Record<string, unknown> };
      }[]
    >(
      `SELECT id, workspace_id, subject_id, payload FROM outbox_events WHERE type = 'personal_data.breach_notice'`,
    );
    // Workspaces with an agent get the event; the solo sign-up (no agent) reads it in the app only.
    expect(events.map((e) => e.workspace_id).sort()).toEqual(
      [whole.workspaceId, whole.workspaceId, chosen.workspaceId].sort(),
    );
    expect(events.map((e) => e.workspace_id)).not.toContain(bystander.workspaceId);
    for (const e of events) {
      const notice = notices.find((n) => n.id === e.subject_id)!;
      expect(notice.outbox_event_id).toBe(e.id);
      expect(e.payload.data).toMatchObject({ breach_id: breachId, person_id: notice.person_id });
      expect(JSON.stringify(e.payload.data.sections)).toContain('What this may mean for you');
    }
    expect(notices.find((n) => n.person_id === noAgent.personId)!.outbox_event_id).toBeNull();

    const again = await post(
      `/app/ops/breaches/${breachId}/notices`,
      {},
      `/app/ops/breaches/${breachId}`,
    );
    expect(again.status).toBe(409);
    expect(
      await t.db.query('SELECT 1 FROM breach_notices WHERE breach_id = $1', [breachId]),
    ).toHaveLength(4);
  });

  it('shows each affected person the notice in the app, and nobody else', async () => {
    for (const who of [
      { email: chosen.email, password: chosen.password },
      { email: noAgent.email, password: noAgent.password },
    ]) {
      const session = await signIn(t, who.email, who.password);
      const res = await page('/app/notices', session);
      expect(res.status).toBe(200);
      expect(res.text).toContain('A problem with your personal data');
      expect(res.text).toContain('left readable on a public file share');
      expect(res.text).toContain('Choose a new password');
      expect(res.text).toContain('Data Protection Board');
    }
    const other = await signIn(t, bystander.email, bystander.password);
    const res = await page('/app/notices', other);
    expect(res.status).toBe(200);
    expect(res.text).toContain('id="no-notices"');
    expect(res.text).not.toContain('public file share');
    expect((await request(t.url).get('/app/notices')).status).toBe(303);
  });

  it('runs the 72-hour clock from awareness: time left before the deadline, overdue in red after', async () => {
    const due = awareAt.getTime() + 72 * HOUR;
    const json = async () =>
      (await page(`/app/ops/breaches/${breachId}/report.json`)).body as {
        deadline: { state: string; in_words: string; due_at: string };
      };

    await advance(due - 90_000 - t.clock.now().getTime());
    let detail = await page(`/app/ops/breaches/${breachId}`);
    expect(detail.text).toContain('data-clock="running"');
    expect(detail.text).toContain('<strong>1 min left</strong>');
    expect((await json()).deadline).toMatchObject({
      state: 'running',
      due_at: new Date(due).toISOString(),
    });

    await advance(3 * 60_000);
    detail = await page(`/app/ops/breaches/${breachId}`);
    expect(detail.text).toContain('data-clock="overdue"');
    expect(detail.text).toContain('<strong class="error">overdue by 1 min</strong>');
    const list = await page('/app/ops/breaches');
    expect(list.text).toContain(`data-breach="${breachId}" data-clock="overdue"`);
    expect((await json()).deadline).toMatchObject({
      state: 'overdue',
      in_words: 'overdue by 1 min',
    });
  });

  it('produces the report to the Board (page and JSON) with the rule 7(2) fields, then records it as sent', async () => {
    const saved = await post(
      `/app/ops/breaches/${breachId}/details`,
      {
        facts_and_reasons:
          'A backup job copied the database to a share whose access list had been widened.',
        responsible_findings:
          'No outside person identified; the share was opened by a misconfiguration.',
        remedial_measures:
          'Backups now go only to a private bucket; access lists are reviewed weekly.',
      },
      `/app/ops/breaches/${breachId}`,
    );
    expect(saved.status).toBe(303);
    const json = await page(`/app/ops/breaches/${breachId}/report.json`);
    expect(json.status).toBe(200);
    expect(json.headers['content-disposition']).toContain('attachment');
    expect(json.body).toMatchObject({
      object: 'personal_data_breach_report',
      breach_id: breachId,
      description: {
        nature: expect.stringContaining('public file share'),
        extent: expect.stringContaining('1,200'),
        became_aware_at: awareAt.toISOString(),
        location: 'Backup storage bucket, Mumbai region',
        personal_data_affected: expect.stringContaining('email address'),
        likely_impact: expect.stringContaining('pretending'),
      },
      detailed: {
        broad_facts_events_circumstances_reasons: expect.stringContaining('backup job'),
        measures_to_mitigate_risk: expect.stringContaining('closed the share'),
        findings_regarding_person_who_caused_it: expect.stringContaining('misconfiguration'),
        remedial_measures_to_prevent_recurrence: expect.stringContaining('private bucket'),
        intimations_to_affected_persons: {
          persons_affected: 4,
          notices_given: 4,
          also_sent_to_workspace_webhooks: 3,
        },
      },
    });
    const printable = await page(`/app/ops/breaches/${breachId}/report`);
    expect(printable.status).toBe(200);
    expect(printable.text).toContain('report to the Data Protection Board of India');
    expect(printable.text).toContain('4 notices given to 4 affected persons');
    expect(printable.text).toContain('data-clock="overdue"');

    const reported = await post(
      `/app/ops/breaches/${breachId}/reported`,
      { board_reference: 'DPB/2026/0042' },
      `/app/ops/breaches/${breachId}`,
    );
    expect(reported.status).toBe(303);
    const after = await page(`/app/ops/breaches/${breachId}`);
    expect(after.text).toContain('data-clock="reported_late"');
    expect(after.text).toContain('DPB/2026/0042');
    expect(after.text).not.toContain('id="mark-reported"');
  });

  it('a report sent before the deadline reads reported on time', async () => {
    await advance(-(t.clock.now().getTime() - Date.now()));
    const aware = new Date(t.clock.now().getTime() - 10 * HOUR);
    const res = await post('/app/ops/breaches', { ...facts(aware), person_ids: chosen.personId });
    const id = /(pdb_\w+)$/.exec(res.headers.location)![1];
    await post(`/app/ops/breaches/${id}/reported`, {}, `/app/ops/breaches/${id}`);
    const json = await page(`/app/ops/breaches/${id}/report.json`);
    expect(json.body.deadline.state).toBe('reported');
    expect(json.body.deadline.in_words).toMatch(/^reported 6[12] h \d+ min before the deadline$/);
  });

  it('audits every step in the operator workspace, with ids and counts only', async () => {
    const rows = await t.db.query<
      { action: string; actor_type: string; data: Record<string, unknown> }[]
    >(
      `SELECT action, actor_type, data FROM audit_events
        WHERE workspace_id = $1 AND subject_id = $2 ORDER BY id`,
      [operatorWorkspaceId, breachId],
    );
    expect(rows.map((r) => r.action)).toEqual([
      'breach.recorded',
      'breach.notices_sent',
      'breach.report_opened',
      'breach.report_opened',
      'breach.details_updated',
      'breach.report_opened',
      'breach.report_opened',
      'breach.reported_to_board',
    ]);
    expect(rows.every((r) => r.actor_type === 'person')).toBe(true);
    expect(rows[1].data).toEqual({ notices: 4, webhooks: 3 });
    expect(rows.at(-1)!.data).toEqual({ state: 'reported_late', has_reference: true });
    const text = JSON.stringify(rows);
    expect(text).not.toContain(chosen.email);
    expect(text).not.toContain('public file share');
  });
});
