import { createMandate } from '../factories/mandate.factory';
import { insertToken } from '../factories/payment-fixtures';
import {
  completeWithToken,
  listTeaAndBiscuits,
  openTeaSession,
} from '../factories/tea-checkout.factory';
import { startApp, TestApp } from '../support/app';
import { seedWorkspace } from '../support/seed';

/**
 * Spending a delegated token updates its row once (status `usable` → `used`, `used_at`); with no
 * index holding either column and room left on each page, that update stays on the page and writes
 * no index entry (migration 1764000001600-TokenUpdatesStayOnPage).
 */
describe('delegated tokens: the spend is a HOT update', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({ rail: 'sandbox', runWorkers: false });
  });
  afterAll(() => t.close());

  it('no index of delegated_tokens holds status or used_at, and pages keep a fifth free', async () => {
    const rows = await t.db.query<{ name: string; def: string }[]>(
      `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS def
         FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        WHERE i.indrelid = 'delegated_tokens'::regclass`,
    );
    expect(rows.length).toBeGreaterThanOrEqual(4);
    expect(rows.filter((r) => /\bstatus\b|\bused_at\b/.test(r.def))).toEqual([]);
    const [table] = await t.db.query<{ options: string[] | null }[]>(
      `SELECT reloptions AS options FROM pg_class WHERE oid = 'delegated_tokens'::regclass`,
    );
    expect(table.options).toContain('fillfactor=80');
  });

  it('the same update a complete makes is counted by Postgres as HOT', async () => {
    const ws = await seedWorkspace(t);
    await listTeaAndBiscuits(t, ws);
    const mandateId = await createMandate(t, { workspaceId: ws.workspaceId, agentId: ws.buyer.id });
    const sessionId = await openTeaSession(t, ws);
    const token = await insertToken(t, ws, { sessionId, mandateId, maxAmountPaise: 92_500 });
    const qr = t.db.createQueryRunner();
    await qr.connect();
    await qr.startTransaction();
    try {
      await qr.query(`UPDATE delegated_tokens SET status = 'used', used_at = now() WHERE id = $1`, [
        token,
      ]);
      // This transaction's own counters: no other backend's work counts here.
      const [counts] = (await qr.query(
        `SELECT pg_stat_get_xact_tuples_updated('delegated_tokens'::regclass)::int AS updated,
                pg_stat_get_xact_tuples_hot_updated('delegated_tokens'::regclass)::int AS hot`,
      )) as { updated: number; hot: number }[];
      expect(counts).toEqual({ updated: 1, hot: 1 });
    } finally {
      await qr.rollbackTransaction();
      await qr.release();
    }
    // And the complete itself still spends the token.
    const done = await completeWithToken(t, ws, sessionId, token).expect(200);
    expect(done.body.status).toBe('completed');
    const [row] = await t.db.query<{ status: string }[]>(
      `SELECT status FROM delegated_tokens WHERE id = $1`,
      [token],
    );
    expect(row.status).toBe('used');
  });
});
