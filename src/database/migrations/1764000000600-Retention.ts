import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the retention job (src/retention, docs/personal-data.md "Retention schedule") needs:
 * - persons.last_signed_in_at: set by every sign-in and the sign-up's own session, so a sign-up
 *   nobody came back to can be told from a person who uses the app (NULL: before this column;
 *   created_at stands in).
 * - forex_documents: the sealed bytes (stored_documents) of a closed file's documents are deleted
 *   once its retention period ends; the metadata (kind, size, SHA-256 cited by the file's signed
 *   receipt) stays, with stored_document_id NULL and purged_at set, so the receipt still verifies.
 */
export class Retention1764000000600 implements MigrationInterface {
  name = 'Retention1764000000600';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE persons ADD COLUMN last_signed_in_at timestamptz;
      ALTER TABLE forex_documents ALTER COLUMN stored_document_id DROP NOT NULL;
      ALTER TABLE forex_documents ADD COLUMN purged_at timestamptz;
      ALTER TABLE forex_documents ADD CONSTRAINT forex_documents_purged_chk
        CHECK ((stored_document_id IS NULL) = (purged_at IS NOT NULL));
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE forex_documents DROP CONSTRAINT forex_documents_purged_chk;
      ALTER TABLE forex_documents DROP COLUMN purged_at;
      ALTER TABLE forex_documents ALTER COLUMN stored_document_id SET NOT NULL;
      ALTER TABLE persons DROP COLUMN last_signed_in_at;
    `);
  }
}
