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
});
