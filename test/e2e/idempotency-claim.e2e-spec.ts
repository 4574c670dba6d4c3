import { randomUUID } from 'node:crypto';

import request from 'supertest';

import { IN_FLIGHT_LEASE_MS } from '../../src/common/idempotency/idempotency.interceptor';
import { startApp, TestApp } from '../support/app';
import { withKeyHeld } from '../support/key-lock';
import { ProbeController } from '../support/probe.controller';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';
import { SqlCounter } from '../support/sql-counter';

/**
 * The Idempotency-Key claim (docs/security.md "Idempotency"): one statement decides replay, 409 or "run",
 * and the statements around the handler. Through the test-only probe route
 * (test/support/probe.controller.ts), which writes one audit row per execution.
 */
describe('Idempotency claim', () => {
  let t: TestApp;
  let sql: SqlCounter;

  beforeAll(async () => {
    t = await startApp({}, { controllers: [ProbeController] });
    sql = SqlCounter.install(t);
  });
  afterAll(async () => {
    sql.uninstall();
    await t.close();
  });
  afterEach(() => t.clock.reset());

  const PATH = '/acp/_probe';
  const probe = (ws: SeededWorkspace, key: string, body: object) =>
    sql.measure(() => request(t.url).post(PATH).set(acpHeaders(ws.merchantKey, key)).send(body));

  async function runs(ws: SeededWorkspace, action = 'probe'): Promise<number> {
    const [{ n }] = await t.db.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM audit_events WHERE action = $1 AND actor_id = $2`,
      [action, ws.merchantKeyId],
    );
    return n;
  }

  async function record(ws: SeededWorkspace, key: string) {
    return t.db.query<
      {
        status_code: number;
        response_body: unknown;
        response_raw: string | null;
        pending_until: Date | null;
      }[]
    >(
      `SELECT status_code, response_raw::jsonb AS response_body, response_raw, pending_until FROM idempotency_records
        WHERE owner_id = $1 AND method = 'POST' AND path = $2 AND key = $3`,
      [`protocol_key:${ws.merchantKeyId}`, PATH, key],
    );
  }

  /** The interceptor's advisory lock for this caller and key, held from another connection. */
  function withKeyHeldBy<T>(ws: SeededWorkspace, key: string, run: () => Promise<T>) {
    return withKeyHeld(t, { ownerId: `protocol_key:${ws.merchantKeyId}`, path: PATH, key }, run);
  }

  it('a first request: the claim, the handler, one statement for its answer; no savepoint', async () => {
    const ws = await seedWorkspace(t);
    const key = randomUUID();
    const first = await probe(ws, key, { note: 'one' });
    expect(first.response.status).toBe(201);
    // (A fresh key's first use may look its credential up before the transaction.)
    const txn = first.statements.slice(first.statements.indexOf('BEGIN'));
    expect(txn[1]).toMatch(/^WITH existing AS .*pg_try_advisory_xact_lock/);
    expect(txn.at(-1)).toBe('COMMIT');
    expect(txn.filter((s) => /SAVEPOINT/.test(s))).toEqual([]);
    expect(txn.filter((s) => /idempotency_records/.test(s))).toHaveLength(2);
    // The answer: queued for the commit, sent just before it (with the request's AuditLog rows,
    // if any: the probe writes its row by hand).
    expect(txn.at(-2)).toMatch(/^UPDATE idempotency_records/);
    const [stored] = await record(ws, key);
    expect(stored).toMatchObject({ status_code: 201, pending_until: null });
    expect(stored.response_raw).toBe(first.response.text);
    expect(stored.response_body).toEqual(first.response.body);
  });

  it('a finished key replays byte for byte in one statement, even while a twin holds the lock', async () => {
    const ws = await seedWorkspace(t);
    const key = randomUUID();
    const first = await probe(ws, key, { note: 'once' });
    const replay = await withKeyHeldBy(ws, key, () => probe(ws, key, { note: 'once' }));
    expect(replay.response.status).toBe(201);
    expect(replay.response.headers['idempotent-replayed']).toBe('true');
    expect(replay.response.text).toBe(first.response.text);
    expect(replay.statements).toHaveLength(3); // BEGIN, the claim, COMMIT
    expect(await runs(ws)).toBe(1);

    // A different body under the finished key: 422, nothing runs.
    const other = await probe(ws, key, { note: 'other' });
    expect(other.response.status).toBe(422);
    expect(other.response.body.code).toBe('idempotency_conflict');
    expect(await runs(ws)).toBe(1);
  });

  it('a new key whose lock a twin holds: 409 with Retry-After, nothing stored', async () => {
    const ws = await seedWorkspace(t);
    const key = randomUUID();
    const res = await withKeyHeldBy(ws, key, () => probe(ws, key, { note: 'twin' }));
    expect(res.response.status).toBe(409);
    expect(res.response.body.code).toBe('idempotency_in_flight');
    expect(res.response.headers['retry-after']).toBe('1');
    expect(await record(ws, key)).toEqual([]);
    expect(await runs(ws)).toBe(0);
  });

  it('an in-flight record answers 409 within its lease and is taken over once the lease ran out', async () => {
    const ws = await seedWorkspace(t);
    const key = randomUUID();
    const now = t.clock.now();
    // A request whose first phase committed and whose process died before it finished.
    await t.db.query(
      `INSERT INTO idempotency_records (owner_id, method, path, key, request_hash, status_code, pending_until, expires_at)
       VALUES ($1, 'POST', $2, $3, 'stale-hash', 201, $4, $5)`,
      [
        `protocol_key:${ws.merchantKeyId}`,
        PATH,
        key,
        new Date(now.getTime() + IN_FLIGHT_LEASE_MS),
        new Date(now.getTime() + 24 * 3600_000),
      ],
    );
    const during = await probe(ws, key, { note: 'retry' });
    expect(during.response.status).toBe(409);
    expect(during.response.body.code).toBe('idempotency_in_flight');
    expect(await runs(ws)).toBe(0);

    t.clock.advance(IN_FLIGHT_LEASE_MS + 1000);
    const after = await probe(ws, key, { note: 'retry' });
    expect(after.response.status).toBe(201);
    expect(after.response.headers['idempotent-replayed']).toBeUndefined();
    expect(await runs(ws)).toBe(1);
    const rows = await record(ws, key);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status_code: 201, pending_until: null });
    expect(rows[0].response_raw).toBe(after.response.text);
  });

  it('an expired record is replaced: the key runs again, with any body', async () => {
    const ws = await seedWorkspace(t);
    const key = randomUUID();
    expect((await probe(ws, key, { note: 'day one' })).response.status).toBe(201);
    t.clock.advance(25 * 3600_000);
    const again = await probe(ws, key, { note: 'day two' });
    expect(again.response.status).toBe(201);
    expect(again.response.headers['idempotent-replayed']).toBeUndefined();
    expect(again.response.body.note).toBe('day two');
    expect(await runs(ws)).toBe(2);
    const rows = await record(ws, key);
    expect(rows).toHaveLength(1);
    expect(rows[0].response_raw).toBe(again.response.text);
    // And that answer now replays.
    const replay = await probe(ws, key, { note: 'day two' });
    expect(replay.response.headers['idempotent-replayed']).toBe('true');
    expect(replay.response.text).toBe(again.response.text);
  });

  it('a 4xx rolls the whole transaction back, then its answer is stored by one statement', async () => {
    const ws = await seedWorkspace(t);
    const key = randomUUID();
    const body = { note: 'no', mode: 'fail4xx' };
    const refused = await probe(ws, key, body);
    expect(refused.response.status).toBe(400);
    expect(refused.statements.at(-2)).toBe('ROLLBACK');
    expect(refused.statements.at(-1)).toMatch(/^INSERT INTO idempotency_records/);
    expect(await runs(ws)).toBe(0);
    const [stored] = await record(ws, key);
    expect(stored).toMatchObject({ status_code: 400, pending_until: null });
    expect(stored.response_raw).toBe(refused.response.text);

    const replay = await probe(ws, key, body);
    expect(replay.response.status).toBe(400);
    expect(replay.response.headers['idempotent-replayed']).toBe('true');
    expect(replay.response.text).toBe(refused.response.text);
    expect(await runs(ws)).toBe(0);
  });

  it('a refusal that keeps its writes commits them (audit rows included) and stores the refusal', async () => {
    const ws = await seedWorkspace(t);
    const key = randomUUID();
    const body = { note: 'keep', mode: 'keep4xx' };
    const refused = await probe(ws, key, body);
    expect(refused.response.status).toBe(409);
    expect(refused.response.body.code).toBe('probe_kept');
    expect(refused.statements.at(-1)).toBe('COMMIT');
    expect(await runs(ws)).toBe(1);
    expect(await runs(ws, 'probe_kept')).toBe(1);
    const [stored] = await record(ws, key);
    expect(stored).toMatchObject({ status_code: 409, pending_until: null });

    const replay = await probe(ws, key, body);
    expect(replay.response.status).toBe(409);
    expect(replay.response.headers['idempotent-replayed']).toBe('true');
    expect(replay.response.text).toBe(refused.response.text);
    expect(await runs(ws)).toBe(1);
    expect(await runs(ws, 'probe_kept')).toBe(1);
  });

  it('a 5xx stores nothing and leaves no claim behind', async () => {
    const ws = await seedWorkspace(t);
    const key = randomUUID();
    const failed = await probe(ws, key, { note: 'x', mode: 'fail5xx' });
    expect(failed.response.status).toBe(500);
    expect(await record(ws, key)).toEqual([]);
    expect(await runs(ws)).toBe(0);
    const retried = await probe(ws, key, { note: 'x' });
    expect(retried.response.status).toBe(201);
    expect(await runs(ws)).toBe(1);
  });
});
