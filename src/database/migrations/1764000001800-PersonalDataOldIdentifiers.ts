import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Old values after a correction (docs/personal-data.md "Corrected values"): when a person corrects
 * their name, email or phone, copies of the old value (an ACP buyer contact, an approval summary)
 * are still theirs. We keep only a keyed hash of each old value, normalised (email lower-cased,
 * phone's last 10 digits, name lower-cased with single spaces; `words` is a name's word count),
 * never the value, so erasure can recognise the old copies. Erasure deletes the person's rows (and
 * deleting a person, e.g. an abandoned sign-up, deletes them with it).
 * Owner: src/personal-data/personal-data.repository.ts.
 */
export class PersonalDataOldIdentifiers1764000001800 implements MigrationInterface {
  name = 'PersonalDataOldIdentifiers1764000001800';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE personal_data_old_identifiers (
        id text PRIMARY KEY,
        person_id text NOT NULL REFERENCES persons(id) ON DELETE CASCADE,
        kind text NOT NULL CONSTRAINT personal_data_old_identifiers_kind_chk
          CHECK (kind IN ('name', 'email', 'phone')),
        words integer,
        digest text NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT personal_data_old_identifiers_uq UNIQUE (person_id, kind, digest)
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE personal_data_old_identifiers');
  }
}
