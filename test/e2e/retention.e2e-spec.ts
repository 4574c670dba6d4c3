import { randomBytes } from 'node:crypto';

import { randomToken } from '../../src/common/ids';
import { RetentionJob } from '../../src/retention/retention.job';
import { retentionSchedule } from '../../src/retention/retention-schedule';
import { AppSignupService } from '../../src/web/app-signup.service';
import { PersonSessionService } from '../../src/web/person-session.service';
import { readyTravelFile, registerPartner } from '../factories/forex.factory';
import { startApp, TestApp } from '../support/app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * The retention schedule (docs/personal-data.md "Retention schedule"; src/retention) against real
 * Postgres with the service Clock moved: each kind just inside its period (kept) and just outside
 * (deleted), a bounded batch per run, two runs at once deleting each row once, and the audit rows
 * (counts, never a personal value). The sweep's own timer is off (runWorkers: false) so only the
 * runs the tests start touch the rows.
 */
describe('retention job', () => {
  const BATCH = 3;
  const SIGNUP_DAYS = 30;
  const DAY = 24 * 3600_000;
  const MIN = 60_000;
  let t: TestApp;
  let job: RetentionJob;

  beforeAll(async () => {
    t = await startApp({
      runWorkers: false,
      retention: { everyMs: 3_600_000, batchSize: BATCH, abandonedSignupDays: SIGNUP_DAYS },
    });
    job = t.get(RetentionJob);
  });
  afterAll(async () => {
    t.clock.reset();
    await t?.close();
  });
  beforeEach(() => t.clock.reset());

  /** Moves the service clock to `at` (tests move it; nothing else does). */
  const setClock = (at: Date | number) =>
    t.clock.advance(new Date(at).getTime() - t.clock.now().getTime());

  /** Runs the job until a run deletes nothing of `kind` (each run bounded by BATCH). */
  const drain = async (kind: keyof Awaited<ReturnType<RetentionJob['run']>>) => {
    let total = 0;
    for (;;) {
      const n = (await job.run())[kind];
      expect(n).toBeLessThanOrEqual(BATCH);
      total += n;
      if (n === 0) {
        return total;
      }
    }
  };

  const count = async (sql: string, params: unknown[]) =>
    (await t.db.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM (${sql}) x`, params))[0].n;

  it('documents the schedule: every kind with its period and basis, the uncertain ones marked', () => {
    const rules = retentionSchedule(t.config);
    expect(rules.map((r) => r.kind)).toEqual([
      'person_sessions',
      'idempotency_records',
      'seen_signatures',
      'forex_document_bytes',
      'abandoned_signups',
    ]);
    for (const r of rules) {
      expect(r.what.length).toBeGreaterThan(10);
      expect(r.keptFor.length).toBeGreaterThan(5);
      expect(r.basis.length).toBeGreaterThan(10);
    }
    expect(rules.filter((r) => r.uncertain).map((r) => r.kind)).toEqual([
      'forex_document_bytes',
      'abandoned_signups',
    ]);
  });

  it('sessions: kept until they expire, deleted at expiry', async () => {
    const ws = await seedWorkspace(t);
    const session = await t.get(PersonSessionService).startSession(ws.personId);
    const exists = () =>
      count('SELECT 1 FROM person_sessions WHERE expires_at = $1 AND person_id = $2', [
        session.expiresAt,
        ws.personId,
      ]);
    setClock(session.expiresAt.getTime() - 1000);
    await drain('person_sessions');
    expect(await exists()).toBe(1);
    setClock(session.expiresAt.getTime() + 1000);
    expect(await drain('person_sessions')).toBeGreaterThanOrEqual(1);
    expect(await exists()).toBe(0);
  });

  it('idempotency records and seen signatures: kept until their expiry, then deleted', async () => {
    const expiresAt = new Date(t.clock.now().getTime() + 3600_000);
    const owner = `key_${randomToken(8)}`;
    for (let i = 0; i < 5; i++) {
      await t.db.query(
        `INSERT INTO idempotency_records (owner_id, method, path, key, request_hash, status_code, response_raw, expires_at)
         VALUES ($1, 'POST', '/v1/x', $2, 'h', 201, '{"name":"Asha"}', $3)`,
        [owner, `k${i}`, expiresAt],
      );
    }
    const sig = randomBytes(32).toString('hex');
    await t.db.query('INSERT INTO seen_signatures (signature_hash, expires_at) VALUES ($1, $2)', [
      sig,
      expiresAt,
    ]);
    const records = () => count('SELECT 1 FROM idempotency_records WHERE owner_id = $1', [owner]);
    const sigs = () => count('SELECT 1 FROM seen_signatures WHERE signature_hash = $1', [sig]);

    setClock(expiresAt.getTime() - 1000);
    await drain('idempotency_records');
    await drain('seen_signatures');
    expect(await records()).toBe(5);
    expect(await sigs()).toBe(1);

    setClock(expiresAt.getTime() + 1000);
    // Bounded: one run deletes at most BATCH of a kind; the next run goes on.
    const first = await job.run();
    expect(first.idempotency_records).toBe(BATCH);
    expect(await records()).toBe(5 - BATCH);
    await drain('idempotency_records');
    await drain('seen_signatures');
    expect(await records()).toBe(0);
    expect(await sigs()).toBe(0);
  });

  it('two runs at once (two instances) delete each record once, without errors', async () => {
    const expiresAt = new Date(t.clock.now().getTime() + 60_000);
    const owner = `key_${randomToken(8)}`;
    for (let i = 0; i < BATCH; i++) {
      await t.db.query(
        `INSERT INTO idempotency_records (owner_id, method, path, key, request_hash, status_code, expires_at)
         VALUES ($1, 'POST', '/v1/x', $2, 'h', 201, $3)`,
        [owner, `k${i}`, expiresAt],
      );
    }
    setClock(expiresAt.getTime() + 1000);
    const [a, b] = await Promise.all([job.run(), job.run()]);
    expect(a.idempotency_records + b.idempotency_records).toBeLessThanOrEqual(BATCH);
    await drain('idempotency_records');
    expect(await count('SELECT 1 FROM idempotency_records WHERE owner_id = $1', [owner])).toBe(0);
  });

  it('abandoned sign-ups: kept until N days after the last sign-in, then the workspace, person, sessions and keys go', async () => {
    const email = `abandoned-${randomToken(8).toLowerCase()}@example.test`;
    const { session } = await t.get(AppSignupService).signUp({
      workspaceName: 'Left behind',
      name: 'Nobody Came Back',
      email,
      password: 'correct horse battery',
    });
    const { personId, workspaceId } = session.person;
    const [{ at }] = await t.db.query<{ at: Date }[]>(
      `SELECT greatest(p.last_signed_in_at, w.created_at) AS at
         FROM persons p JOIN workspaces w ON w.id = p.workspace_id WHERE p.id = $1`,
      [personId],
    );
    // A person who came back on day 20 is kept past day 30, until day 50.
    const returning = await t.get(AppSignupService).signUp({
      workspaceName: 'Came back',
      name: 'Back Again',
      email: `back-${randomToken(8).toLowerCase()}@example.test`,
      password: 'correct horse battery',
    });
    // A sign-up that went on to use the service (agents) is never an abandoned one.
    const used: SeededWorkspace = await seedWorkspace(t);
    setClock(at.getTime() + 20 * DAY);
    await t.get(PersonSessionService).startSession(returning.session.person.personId);

    const alive = (ws: string) => count('SELECT 1 FROM workspaces WHERE id = $1', [ws]);
    setClock(at.getTime() + SIGNUP_DAYS * DAY - MIN);
    await drain('abandoned_signups');
    expect(await alive(workspaceId)).toBe(1);

    setClock(at.getTime() + SIGNUP_DAYS * DAY + MIN);
    expect(await drain('abandoned_signups')).toBeGreaterThanOrEqual(1);
    expect(await alive(workspaceId)).toBe(0);
    expect(
      await count('SELECT 1 FROM persons WHERE id = $1 OR email = $2', [personId, email]),
    ).toBe(0);
    expect(await count('SELECT 1 FROM api_keys WHERE workspace_id = $1', [workspaceId])).toBe(0);
    expect(await count('SELECT 1 FROM person_sessions WHERE person_id = $1', [personId])).toBe(0);
    expect(await alive(returning.session.person.workspaceId)).toBe(1);
    expect(await alive(used.workspaceId)).toBe(1);

    setClock(at.getTime() + (20 + SIGNUP_DAYS) * DAY + MIN);
    await drain('abandoned_signups');
    expect(await alive(returning.session.person.workspaceId)).toBe(0);
    expect(await alive(used.workspaceId)).toBe(1);

    // Audited in the deleted workspace's trail and as a service count: no name or email.
    const audit = await t.db.query<{ action: string; data: Record<string, unknown> }[]>(
      `SELECT action, data FROM audit_events
        WHERE (workspace_id = $1 AND action = 'retention.abandoned_signup_deleted')
           OR (workspace_id = 'service' AND action = 'retention.deleted' AND data->>'kind' = 'abandoned_signups')`,
      [workspaceId],
    );
    expect(audit.map((a) => a.action).sort()).toEqual(
      expect.arrayContaining(['retention.abandoned_signup_deleted', 'retention.deleted']),
    );
    const text = JSON.stringify(audit);
    expect(text).not.toContain(email);
    expect(text).not.toContain('Nobody Came Back');
  });

  it('forex documents: bytes kept until the KYC period after the file closed, then deleted; the metadata stays', async () => {
    const ws = await seedWorkspace(t);
    const partner = await registerPartner(t);
    const { fileId } = await readyTravelFile(t, ws, partner.partnerId);
    const open = await readyTravelFile(t, ws, partner.partnerId);
    // Rejected by the dealer now (written straight: the desk's own flow is tested elsewhere).
    const closedAt = t.clock.now();
    await t.db.query(
      `UPDATE forex_files SET status = 'rejected', decided_at = $2, updated_at = $2 WHERE id = $1`,
      [fileId, closedAt],
    );
    const docs = () =>
      t.db.query<{ id: string; stored_document_id: string | null; purged_at: Date | null }[]>(
        'SELECT id, stored_document_id, purged_at FROM forex_documents WHERE file_id = $1 ORDER BY id',
        [fileId],
      );
    const before = await docs();
    expect(before).toHaveLength(2);
    const storedIds = before.map((d) => d.stored_document_id);
    const years = retentionSchedule(t.config).find((r) => r.kind === 'forex_document_bytes')!;
    expect(years.keptFor).toMatch(/^5 years/);
    const end = new Date(closedAt.getTime());
    end.setUTCFullYear(end.getUTCFullYear() + 5);

    setClock(end.getTime() - MIN);
    await drain('forex_document_bytes');
    expect((await docs()).every((d) => d.stored_document_id !== null)).toBe(true);

    setClock(end.getTime() + MIN);
    expect(await drain('forex_document_bytes')).toBe(2);
    const after = await docs();
    expect(after.map((d) => d.id)).toEqual(before.map((d) => d.id));
    expect(after.every((d) => d.stored_document_id === null && d.purged_at !== null)).toBe(true);
    expect(await count('SELECT 1 FROM stored_documents WHERE id = ANY($1)', [storedIds])).toBe(0);
    // A file still open keeps its documents however old.
    expect(
      await count(
        'SELECT 1 FROM forex_documents WHERE file_id = $1 AND stored_document_id IS NOT NULL',
        [open.fileId],
      ),
    ).toBe(2);
    const [audit] = await t.db.query<{ data: Record<string, unknown> }[]>(
      `SELECT data FROM audit_events WHERE action = 'retention.forex_documents_deleted' AND subject_id = $1`,
      [fileId],
    );
    expect(audit.data).toEqual({ documents: 2 });
  });
});
