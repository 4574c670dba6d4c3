import { OutboxPending1764000001500 } from '../../src/database/migrations/1764000001500-OutboxPending';
import { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher';
import { createMandate } from '../factories/mandate.factory';
import { completeTeaOrder, listTeaAndBiscuits } from '../factories/tea-checkout.factory';
import { startApp, TestApp } from '../support/app';
import { inScratchSchema } from '../support/scratch-schema';
import { seedWorkspace } from '../support/seed';

/**
 * The outbox's queue apart from its log (migration 1764000001500-OutboxPending; docs/architecture.md,
 * "Events and webhooks"): an event is written once and never updated; while it waits for the
 * dispatcher its id is in outbox_pending, written by the same statement and deleted by the claim.
 */
describe('outbox: events never updated, their queue in outbox_pending', () => {
  let t: TestApp;

  beforeAll(async () => {
    // No workers: nothing dispatches until the test calls the dispatcher.
    t = await startApp({ rail: 'sandbox', runWorkers: false });
  });
  afterAll(() => t.close());

  async function eventsOfOrder(orderId: string) {
    return t.db.query<{ id: string; type: string; version: string; waiting_since: Date | null }[]>(
      `SELECT e.id, e.type, e.xmin::text || e.ctid::text AS version, p.created_at AS waiting_since
         FROM outbox_events e
         LEFT JOIN outbox_pending p ON p.event_id = e.id
        WHERE e.subject_id IN ($1, $1 || ':fulfilled')
           OR e.subject_id IN (SELECT intent_id FROM checkout_sessions WHERE order_id = $1)
        ORDER BY e.type`,
      [orderId],
    );
  }

  it('a settled purchase queues its three events; the claim takes them off the queue and leaves each event as written', async () => {
    const ws = await seedWorkspace(t);
    await listTeaAndBiscuits(t, ws);
    const mandateId = await createMandate(t, { workspaceId: ws.workspaceId, agentId: ws.buyer.id });
    const orderId = await completeTeaOrder(t, ws, mandateId);

    const before = await eventsOfOrder(orderId);
    expect(before.map((e) => e.type)).toEqual(['intent.settled', 'order_create', 'order_update']);
    // Each waits, queued at its own created_at, by the statement that wrote it.
    const [created] = await t.db.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM outbox_pending p JOIN outbox_events e ON e.id = p.event_id
        WHERE p.event_id = ANY($1) AND p.created_at = e.created_at`,
      [before.map((e) => e.id)],
    );
    expect(created.n).toBe(3);

    const dispatcher = t.app.get(WebhookDispatcher);
    expect(await dispatcher.dispatchBatch(before.map((e) => e.id))).toBe(3);

    const after = await eventsOfOrder(orderId);
    expect(after.map((e) => e.waiting_since)).toEqual([null, null, null]);
    // The same row versions: dispatching did not rewrite the events.
    expect(after.map((e) => e.version)).toEqual(before.map((e) => e.version));
    // Claimed once: a second claim of the same ids finds nothing.
    expect(await dispatcher.dispatchBatch(before.map((e) => e.id))).toBe(0);
  });

  it('the queue is vacuumed after every 1,000 deleted rows, not after a fifth of the table', async () => {
    const [table] = await t.db.query<{ options: string[] | null }[]>(
      `SELECT reloptions AS options FROM pg_class WHERE oid = 'outbox_pending'::regclass`,
    );
    expect(table.options).toEqual(
      expect.arrayContaining([
        'autovacuum_vacuum_scale_factor=0',
        'autovacuum_vacuum_threshold=1000',
      ]),
    );
  });

  it('a pending row without its event is cleared by the sweep and claims nothing', async () => {
    await t.db.query(
      `INSERT INTO outbox_pending (event_id, created_at) VALUES ('evt_orphan_test', now() - interval '1 day')`,
    );
    const dispatcher = t.app.get(WebhookDispatcher);
    await dispatcher.dispatchPending();
    const [left] = await t.db.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM outbox_pending WHERE event_id = 'evt_orphan_test'`,
    );
    expect(left.n).toBe(0);
  });

  it('migration: waiting events move to outbox_pending and dispatched_at goes; down puts both back', async () => {
    await inScratchSchema(t, async (qr) => {
      await qr.query(
        `CREATE TABLE outbox_events (id text PRIMARY KEY, created_at timestamptz NOT NULL, dispatched_at timestamptz)`,
      );
      await qr.query(
        `CREATE INDEX outbox_events_undispatched_idx ON outbox_events (created_at) WHERE dispatched_at IS NULL`,
      );
      await qr.query(
        `INSERT INTO outbox_events (id, created_at, dispatched_at) VALUES
         ('evt_sent', '2026-11-01T10:00:00Z', '2026-11-01T10:00:01Z'),
         ('evt_waiting', '2026-11-02T10:00:00Z', NULL)`,
      );
      const migration = new OutboxPending1764000001500();

      await migration.up(qr);
      expect(await qr.query(`SELECT event_id, created_at FROM outbox_pending`)).toEqual([
        { event_id: 'evt_waiting', created_at: new Date('2026-11-02T10:00:00Z') },
      ]);
      const columns = (await qr.query(
        `SELECT column_name FROM information_schema.columns
        WHERE table_schema = 'migration_scratch' AND table_name = 'outbox_events' ORDER BY column_name`,
      )) as { column_name: string }[];
      expect(columns.map((c) => c.column_name)).toEqual(['created_at', 'id']);

      await migration.down(qr);
      expect(await qr.query(`SELECT id, dispatched_at FROM outbox_events ORDER BY id`)).toEqual([
        // When it was dispatched was not kept: its created_at stands in.
        { id: 'evt_sent', dispatched_at: new Date('2026-11-01T10:00:00Z') },
        { id: 'evt_waiting', dispatched_at: null },
      ]);
      const [{ pending }] = (await qr.query(
        `SELECT to_regclass('migration_scratch.outbox_pending') IS NOT NULL AS pending`,
      )) as { pending: boolean }[];
      expect(pending).toBe(false);
      const [{ idx }] = (await qr.query(
        `SELECT to_regclass('migration_scratch.outbox_events_undispatched_idx') IS NOT NULL AS idx`,
      )) as { idx: boolean }[];
      expect(idx).toBe(true);
    });
  });
});
