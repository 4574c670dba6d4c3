import { RefusalKeepingWrites, Tx } from '../../src/database/tx';
import { startApp, TestApp } from '../support/app';

/**
 * The ambient transaction (docs/architecture.md, "Transactions"): a deadlock or serialisation
 * failure is retried by the outermost Tx.run instead of reaching a client, and a refusal that
 * keeps its writes commits them before it is thrown.
 */
describe('Tx', () => {
  let t: TestApp;
  let tx: Tx;

  beforeAll(async () => {
    t = await startApp();
    tx = t.get(Tx);
    await t.db.query(`CREATE TABLE tx_probe (id int PRIMARY KEY, n int NOT NULL DEFAULT 0)`);
    await t.db.query(`INSERT INTO tx_probe (id) VALUES (1), (2)`);
  });
  afterAll(() => t.close());

  it('runs a transaction that lost a deadlock again, so both sides commit', async () => {
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    let runs = 0;
    // Opposite lock orders on purpose: Postgres breaks the cycle by failing one with 40P01.
    const side = (first: number, second: number) =>
      tx.run(async (m) => {
        runs++;
        await m.query(`UPDATE tx_probe SET n = n + 1 WHERE id = $1`, [first]);
        await sleep(150);
        await m.query(`UPDATE tx_probe SET n = n + 1 WHERE id = $1`, [second]);
        return first;
      });
    await expect(Promise.all([side(1, 2), side(2, 1)])).resolves.toEqual([1, 2]);
    expect(runs).toBe(3);
    const rows = await t.db.query<{ id: number; n: number }[]>(
      `SELECT id, n FROM tx_probe ORDER BY id`,
    );
    expect(rows).toEqual([
      { id: 1, n: 2 },
      { id: 2, n: 2 },
    ]);
  });

  it('commits the writes of a RefusalKeepingWrites and throws the refusal it carries', async () => {
    const refusal = new Error('refused, but recorded');
    await expect(
      tx.run(async (m) => {
        await m.query(`UPDATE tx_probe SET n = 100 WHERE id = 1`);
        throw new RefusalKeepingWrites(refusal);
      }),
    ).rejects.toBe(refusal);
    const [row] = await t.db.query<{ n: number }[]>(`SELECT n FROM tx_probe WHERE id = 1`);
    expect(row.n).toBe(100);
  });

  it('rolls back an ordinary error', async () => {
    await expect(
      tx.run(async (m) => {
        await m.query(`UPDATE tx_probe SET n = 500 WHERE id = 2`);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const [row] = await t.db.query<{ n: number }[]>(`SELECT n FROM tx_probe WHERE id = 2`);
    expect(row.n).toBe(2);
  });

  // docs/architecture.md "Round trips": BEGIN and COMMIT ride with statements, and statements
  // called back to back are written back to back.
  describe('round trips', () => {
    const n = async (id: number) =>
      (await t.db.query<{ n: number }[]>(`SELECT n FROM tx_probe WHERE id = $1`, [id]))[0].n;
    /** Queues `UPDATE tx_probe SET n = value WHERE id = id` for the commit's statement. */
    const setAtCommit = (id: number, value: number) =>
      tx.writeBeforeCommit('tx_probe', { id, value }, (rows) => ({
        sql: `UPDATE tx_probe SET n = v.value FROM unnest($1::int[], $2::int[]) AS v(id, value)
               WHERE tx_probe.id = v.id`,
        params: [rows.map((r) => r.id), rows.map((r) => r.value)],
      }));

    it('a failing first statement (it carries BEGIN) rolls back, and the connection is clean', async () => {
      await expect(
        tx.run(async (m) => {
          await m.query(`SELECT 1 / 0`);
        }),
      ).rejects.toThrow(/division by zero/);
      // Every pooled connection is out of any transaction: the next ones commit normally.
      for (let i = 0; i < 25; i++) {
        await tx.run(async (m) => {
          await m.query(`UPDATE tx_probe SET n = $1 WHERE id = 2`, [i]);
        });
      }
      expect(await n(2)).toBe(24);
    });

    it('a failing commit statement (it carries COMMIT) rolls back every write of the transaction', async () => {
      await tx.run(async (m) => m.query(`UPDATE tx_probe SET n = 0 WHERE id IN (1, 2)`));
      await expect(
        tx.run(async (m) => {
          await m.query(`UPDATE tx_probe SET n = 11 WHERE id = 1`);
          // Fails when the queued statement runs, just before COMMIT: n is NOT NULL.
          await tx.writeBeforeCommit('tx_probe_null', null, () => ({
            sql: `UPDATE tx_probe SET n = NULL WHERE id = $1`,
            params: [2],
          }));
        }),
      ).rejects.toThrow(/null value/);
      expect([await n(1), await n(2)]).toEqual([0, 0]);
      // The queued statement commits with what ran before it.
      await tx.run(async (m) => {
        await m.query(`UPDATE tx_probe SET n = 5 WHERE id = 1`);
        await setAtCommit(2, 6);
      });
      expect([await n(1), await n(2)]).toEqual([5, 6]);
    });

    it('a COMMIT that fails (a deferred constraint) fails the transaction and keeps nothing', async () => {
      await t.db.query(`CREATE TABLE tx_deferred (k int,
                          CONSTRAINT tx_deferred_k UNIQUE (k) DEFERRABLE INITIALLY DEFERRED)`);
      await expect(
        tx.run(async (m) => {
          await m.query(`INSERT INTO tx_deferred (k) VALUES (1)`);
          await tx.writeBeforeCommit('tx_deferred', 1, (rows) => ({
            sql: `INSERT INTO tx_deferred (k) SELECT unnest($1::int[])`,
            params: [rows],
          }));
        }),
      ).rejects.toThrow(/tx_deferred_k/);
      const [{ c }] = await t.db.query<{ c: number }[]>(
        `SELECT count(*)::int AS c FROM tx_deferred`,
      );
      expect(c).toBe(0);
    });

    it('statements called back to back run in call order, each seeing the one before', async () => {
      const seen = await tx.run(async (m) => {
        const write = m.query(`UPDATE tx_probe SET n = 42 WHERE id = 1`);
        const read = m.query<{ n: number }[]>(`SELECT n FROM tx_probe WHERE id = 1`);
        const [, rows] = await Promise.all([write, read]);
        return rows[0].n;
      });
      expect(seen).toBe(42);
    });

    it('a transaction that sends nothing commits nothing and leaves no transaction open', async () => {
      await expect(tx.run(() => Promise.resolve('nothing'))).resolves.toBe('nothing');
      await tx.run(async (m) => m.query(`UPDATE tx_probe SET n = 9 WHERE id = 2`));
      expect(await n(2)).toBe(9);
    });
  });
});
