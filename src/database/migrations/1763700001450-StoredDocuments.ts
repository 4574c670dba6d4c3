import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Documents at rest (src/documents/document-store.ts, docs/documents.md "Documents and outbound fetches"):
 * the bytes only as AES-256-GCM ciphertext (`iv ‖ tag ‖ ciphertext`) under the key version
 * recorded on the row; the SHA-256 of the plaintext (hex) is what receipts cite. Types and the
 * size cap (5,000,000 bytes, MB = 10^6) are those of src/documents/document-content.ts.
 */
export class StoredDocuments1763700001450 implements MigrationInterface {
  name = 'StoredDocuments1763700001450';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE stored_documents (
        id text PRIMARY KEY CONSTRAINT stored_documents_id_chk CHECK (id LIKE 'doc\\_%'),
        content_type text NOT NULL CONSTRAINT stored_documents_content_type_chk
          CHECK (content_type IN ('application/pdf', 'image/jpeg', 'image/png')),
        size_bytes integer NOT NULL CONSTRAINT stored_documents_size_bytes_chk
          CHECK (size_bytes BETWEEN 1 AND 5000000),
        sha256 text NOT NULL CONSTRAINT stored_documents_sha256_chk CHECK (sha256 ~ '^[0-9a-f]{64}$'),
        key_version integer NOT NULL CONSTRAINT stored_documents_key_version_chk CHECK (key_version >= 1),
        ciphertext bytea NOT NULL CONSTRAINT stored_documents_ciphertext_chk
          CHECK (octet_length(ciphertext) = size_bytes + 28),
        created_at timestamptz NOT NULL DEFAULT now()
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE stored_documents`);
  }
}
