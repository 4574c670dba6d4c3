import { AuditLog } from '../../src/common/audit';
import { randomToken } from '../../src/common/ids';
import { RefusalKeepingWrites, Tx } from '../../src/database/tx';
import { startApp, TestApp } from '../support/app';
import { SqlCounter } from '../support/sql-counter';

/**
 * Audit rows queued in the ambient transaction and written by one statement just before it
 * commits (`Tx.writeBeforeCommit`, `AuditLog.record`; docs/architecture.md "Transactions").
 */
describe('AuditLog through Tx.writeBeforeCommit', () => {
  let t: TestApp;
  let tx: Tx;
  let audit: AuditLog;
  let sql: SqlCounter;

  beforeAll(async () => {
    t = await startApp();
    tx = t.get(Tx);
    audit = t.get(AuditLog);
    sql = SqlCounter.forCalls(t.db);
  });
  afterAll(async () => {
    sql.uninstall();
    await t.close();
  });

  const actor = { type: 'system' as const, id: 'audit-batch-test' };
  /** A workspace id of its own per test, so its rows are easy to find. */
  const workspace = () => `ws_audit_${randomToken(10)}`;

  async function rows(workspaceId: string) {
    return t.db.query<
      {
        actor_type: string;
        actor_id: string;
        action: string;
        subject_id: string | null;
        data: unknown;
        same_tx: boolean;
      }[]
    >(
      `SELECT actor_type, actor_id, action, subject_id, data,
              created_at = min(created_at) OVER () AS same_tx
         FROM audit_events WHERE workspace_id = $1 ORDER BY id`,
      [workspaceId],
    );
  }

  it('writes every row a transaction recorded in one statement, in order, content unchanged', async () => {
    const ws = workspace();
    const awkward = {
      quote: 'say "hi", {braces}, \\back\\slash, comma, NULL',
      unicode: '₹2,000 — नमस्ते',
      nested: { list: [1, 'two', null], empty: {} },
    };
    const { statements } = await sql.measureCall(() =>
      tx.run(async (m) => {
        await audit.record(ws, actor, 'first', 'sub_1', { n: 1 });
        await m.query('SELECT 1');
        await audit.record(ws, { type: 'person', id: 'per_x' }, 'second', null);
        await audit.record(ws, actor, 'NULL', 'sub_3', awkward);
      }),
    );
    expect(statements.filter((s) => /audit_events/.test(s))).toHaveLength(1);
    expect(statements.at(-2)).toMatch(/^INSERT INTO audit_events/);
    expect(await rows(ws)).toEqual([
      {
        actor_type: 'system',
        actor_id: 'audit-batch-test',
        action: 'first',
        subject_id: 'sub_1',
        data: { n: 1 },
        same_tx: true,
      },
      {
        actor_type: 'person',
        actor_id: 'per_x',
        action: 'second',
        subject_id: null,
        data: {},
        same_tx: true,
      },
      {
        actor_type: 'system',
        actor_id: 'audit-batch-test',
        action: 'NULL',
        subject_id: 'sub_3',
        data: awkward,
        same_tx: true,
      },
    ]);
  });

  it('never writes the rows of a transaction that rolled back', async () => {
    const ws = workspace();
    await expect(
      tx.run(async () => {
        await audit.record(ws, actor, 'doomed', null);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await rows(ws)).toEqual([]);
  });

  it('writes them when a refusal keeps its writes', async () => {
    const ws = workspace();
    const refusal = new Error('refused, but recorded');
    await expect(
      tx.run(async () => {
        await audit.record(ws, actor, 'kept', null);
        throw new RefusalKeepingWrites(refusal);
      }),
    ).rejects.toBe(refusal);
    expect((await rows(ws)).map((r) => r.action)).toEqual(['kept']);
  });

  it('drops the rows of a rolled-back savepoint and keeps the others', async () => {
    const ws = workspace();
    await tx.run(async () => {
      await audit.record(ws, actor, 'before', null);
      await expect(
        tx.savepoint('audit_probe', async () => {
          await audit.record(ws, actor, 'inside', null);
          throw new Error('undo the savepoint');
        }),
      ).rejects.toThrow('undo the savepoint');
      await tx.savepoint('audit_probe_ok', () => audit.record(ws, actor, 'kept inside', null));
      await audit.record(ws, actor, 'after', null);
    });
    expect((await rows(ws)).map((r) => r.action)).toEqual(['before', 'kept inside', 'after']);
  });

  it('keeps only the rows of the attempt that committed when a transaction is retried', async () => {
    const ws = workspace();
    let attempt = 0;
    await tx.run(async () => {
      attempt++;
      await audit.record(ws, actor, `attempt ${attempt}`, null);
      if (attempt === 1) {
        throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
      }
    });
    expect(attempt).toBe(2);
    expect((await rows(ws)).map((r) => r.action)).toEqual(['attempt 2']);
  });

  it('writes at once outside a transaction', async () => {
    const ws = workspace();
    const { statements } = await sql.measureCall(() => audit.record(ws, actor, 'alone', 'sub'));
    expect(statements).toHaveLength(1);
    expect((await rows(ws)).map((r) => [r.action, r.subject_id])).toEqual([['alone', 'sub']]);
  });

  it('sends the batches of several kinds as one statement', async () => {
    const ws = workspace();
    const { statements } = await sql.measureCall(() =>
      tx.run(async () => {
        await audit.record(ws, actor, 'audited', null);
        await tx.writeBeforeCommit('other_kind', 'x', (values: string[]) => ({
          sql: `INSERT INTO audit_events (workspace_id, actor_type, actor_id, action)
                SELECT $1, 'system', 'other', v FROM unnest($2::text[]) AS v`,
          params: [ws, values],
        }));
        await tx.writeBeforeCommit('other_kind', 'y', (values: string[]) => ({
          sql: `INSERT INTO audit_events (workspace_id, actor_type, actor_id, action)
                SELECT $1, 'system', 'other', v FROM unnest($2::text[]) AS v`,
          params: [ws, values],
        }));
      }),
    );
    expect(statements).toHaveLength(3); // BEGIN, the batches, COMMIT
    expect(statements[1]).toMatch(/^WITH w1 AS \(INSERT INTO audit_events .*\), w2 AS \(INSERT/);
    expect((await rows(ws)).map((r) => r.action).sort()).toEqual(['audited', 'x', 'y']);
  });
});
