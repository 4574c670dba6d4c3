import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A person's data rights and consent records (issue 22 items 3 and 4; docs/personal-data.md).
 * - persons.phone: an optional mobile number, a contact detail the person can correct;
 * - persons.erased_at, workspaces.erased_at / legal_hold_until: erasure markers. An erased
 *   person's name, email and phone are pseudonymised and the password can never match; a closed
 *   workspace keeps only the records a law requires, until legal_hold_until;
 * - forex_files.traveller_name_salt: the per-file random salt of the traveller-name digest that the
 *   file's signed chain carries instead of the name (so erasure never touches signed bytes); erased
 *   with the name, after which the digest links to nobody. forex_files.erased_at marks the file;
 * - consent_records: one row per consent (a mandate authorised, a protocol key issued, a forex
 *   declaration made) with its purpose in words, when it was given and when withdrawn. Back-filled
 *   from the rows that already carry those times;
 * - personal_data_erasures: one row per erasure: what was kept, under which rule, until when.
 */
export class PersonalData1764000000400 implements MigrationInterface {
  name = 'PersonalData1764000000400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE persons ADD COLUMN phone text;
      ALTER TABLE persons ADD COLUMN erased_at timestamptz;
      ALTER TABLE workspaces ADD COLUMN erased_at timestamptz;
      ALTER TABLE workspaces ADD COLUMN legal_hold_until timestamptz;
      ALTER TABLE forex_files ADD COLUMN traveller_name_salt text;
      ALTER TABLE forex_files ADD COLUMN erased_at timestamptz;

      CREATE TABLE consent_records (
        id text PRIMARY KEY,
        workspace_id text NOT NULL,
        person_id text,
        kind text NOT NULL CONSTRAINT consent_records_kind_chk
          CHECK (kind IN ('mandate', 'protocol_key', 'forex_declaration')),
        subject_id text NOT NULL,
        purpose text NOT NULL,
        given_at timestamptz NOT NULL,
        withdrawn_at timestamptz,
        CONSTRAINT consent_records_kind_subject_id_key UNIQUE (kind, subject_id)
      );
      CREATE INDEX consent_records_workspace_id_given_at_idx
        ON consent_records (workspace_id, given_at);

      CREATE TABLE personal_data_erasures (
        id text PRIMARY KEY,
        workspace_id text NOT NULL,
        person_id text NOT NULL,
        erased_at timestamptz NOT NULL,
        workspace_closed boolean NOT NULL,
        kept jsonb NOT NULL,
        legal_hold_until timestamptz
      );
      CREATE INDEX personal_data_erasures_person_id_idx ON personal_data_erasures (person_id);

      INSERT INTO consent_records (id, workspace_id, person_id, kind, subject_id, purpose, given_at, withdrawn_at)
      SELECT 'cns_' || md5('mandate' || id), workspace_id, authorised_by, 'mandate', id,
             'Let your agent pay from your UPI account within this mandate''s limits',
             authorised_at, revoked_at
        FROM mandates WHERE authorised_at IS NOT NULL;
      INSERT INTO consent_records (id, workspace_id, person_id, kind, subject_id, purpose, given_at, withdrawn_at)
      SELECT 'cns_' || md5('protocol_key' || id), workspace_id, NULL, 'protocol_key', id,
             'Let an agent act for your workspace over the agent protocols with this key',
             created_at, revoked_at
        FROM protocol_keys;
      INSERT INTO consent_records (id, workspace_id, person_id, kind, subject_id, purpose, given_at, withdrawn_at)
      SELECT 'cns_' || md5('forex_declaration' || id), workspace_id, declared_by, 'forex_declaration', id,
             'Send your forex file, PAN (masked) and documents to the dealer to buy foreign currency',
             declared_at, NULL
        FROM forex_files WHERE declared_at IS NOT NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE personal_data_erasures;
      DROP TABLE consent_records;
      ALTER TABLE forex_files DROP COLUMN erased_at;
      ALTER TABLE forex_files DROP COLUMN traveller_name_salt;
      ALTER TABLE workspaces DROP COLUMN legal_hold_until;
      ALTER TABLE workspaces DROP COLUMN erased_at;
      ALTER TABLE persons DROP COLUMN erased_at;
      ALTER TABLE persons DROP COLUMN phone;
    `);
  }
}
