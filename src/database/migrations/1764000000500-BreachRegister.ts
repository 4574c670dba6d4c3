import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The breach register (src/breaches, docs/personal-data.md "Breach register"; DPDP Act 2023
 * s.8(6), DPDP Rules 2025 r.7):
 * - personal_data_breaches: one row per breach an operator records: what happened (nature,
 *   extent, location), when it happened and when we became aware (the Board's 72-hour clock runs
 *   from aware_at), what data, the likely consequences, what we did, what persons can do, whom it
 *   touches (scope: chosen persons and whole workspaces), and the detailed-report fields (facts and
 *   reasons, findings on who caused it, remedial measures), with when the notices went and when the
 *   report went to the Board.
 * - breach_notices: the notice each affected person got, in the words they were shown (sections),
 *   once per (breach, person); outbox_event_id when it also went to the workspace's webhooks.
 *   person_id is not a foreign key: a notice outlives the person's erasure.
 */
export class BreachRegister1764000000500 implements MigrationInterface {
  name = 'BreachRegister1764000000500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE personal_data_breaches (
        id text PRIMARY KEY CONSTRAINT personal_data_breaches_id_chk CHECK (id LIKE 'pdb\\_%'),
        operator_workspace_id text NOT NULL,
        recorded_by text NOT NULL,
        summary text NOT NULL,
        extent text NOT NULL,
        location text NOT NULL,
        data_categories text NOT NULL,
        likely_consequences text NOT NULL,
        mitigation text NOT NULL,
        person_actions text NOT NULL,
        facts_and_reasons text,
        responsible_findings text,
        remedial_measures text,
        occurred_at timestamptz NOT NULL,
        aware_at timestamptz NOT NULL,
        scope jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        notices_sent_at timestamptz,
        board_reported_at timestamptz,
        board_reference text,
        CONSTRAINT personal_data_breaches_times_chk CHECK (occurred_at <= aware_at)
      );
      CREATE INDEX personal_data_breaches_aware_idx ON personal_data_breaches (aware_at DESC);
      CREATE TABLE breach_notices (
        id text PRIMARY KEY CONSTRAINT breach_notices_id_chk CHECK (id LIKE 'bn\\_%'),
        breach_id text NOT NULL REFERENCES personal_data_breaches(id),
        person_id text NOT NULL,
        workspace_id text NOT NULL,
        sections jsonb NOT NULL,
        outbox_event_id text,
        created_at timestamptz NOT NULL,
        CONSTRAINT breach_notices_breach_person_key UNIQUE (breach_id, person_id)
      );
      CREATE INDEX breach_notices_person_idx ON breach_notices (person_id, created_at DESC);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE breach_notices; DROP TABLE personal_data_breaches;`);
  }
}
