import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbox's queue apart from its log (docs/architecture.md, "Events and webhooks"). An event waiting for the
 * dispatcher was a row of outbox_events with `dispatched_at` null, found by a partial index on that
 * column; marking it dispatched rewrote the whole event (payload included: 4.1 KB of WAL per
 * purchase for its three events) and added an entry to each of the table's three other indexes,
 * because an update that changes an indexed column cannot stay on its page (no HOT update).
 * Now a waiting event is a small row of outbox_pending, written by the same statement as the
 * event and deleted by the dispatcher's claim transaction; the event itself is never updated.
 *
 * A queue table: every row is deleted soon after it is written, so autovacuum visits it after
 * every 1,000 dead rows rather than after a fifth of the table (the default), and the sweep's
 * oldest-first read does not walk an index full of deleted entries.
 *
 * No foreign key to outbox_events: the two rows are written by one statement, events are never
 * deleted, and a key check would lock the event row it has just written. An orphan would be
 * harmless: the claim joins the event and deletes a pending row that has none.
 *
 * `down` puts the column and the index back; events dispatched meanwhile get their created_at as
 * dispatched_at (when they were dispatched was not kept).
 */
export class OutboxPending1764000001500 implements MigrationInterface {
  name = 'OutboxPending1764000001500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE outbox_pending (
        event_id text PRIMARY KEY,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX outbox_pending_oldest_idx ON outbox_pending (created_at, event_id);
      ALTER TABLE outbox_pending SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000);
      INSERT INTO outbox_pending (event_id, created_at)
        SELECT id, created_at FROM outbox_events WHERE dispatched_at IS NULL;
      DROP INDEX outbox_events_undispatched_idx;
      ALTER TABLE outbox_events DROP COLUMN dispatched_at;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE outbox_events ADD COLUMN dispatched_at timestamptz;
      UPDATE outbox_events e SET dispatched_at = e.created_at
        WHERE NOT EXISTS (SELECT 1 FROM outbox_pending p WHERE p.event_id = e.id);
      CREATE INDEX outbox_events_undispatched_idx ON outbox_events (created_at) WHERE dispatched_at IS NULL;
      DROP TABLE outbox_pending;
    `);
  }
}
