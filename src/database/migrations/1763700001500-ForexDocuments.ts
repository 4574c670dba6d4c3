import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The documents of a forex file (src/forex): metadata only. The bytes are sealed (AES-256-GCM) in
 * stored_documents (1763700001450-StoredDocuments, src/documents), addressed by id; the SHA-256 of
 * the plaintext is kept here too and goes on the file's receipt. 5 MB = 5,000,000 bytes at most.
 * There is no Aadhaar kind, and the CHECK keeps it so.
 */
export class ForexDocuments1763700001500 implements MigrationInterface {
  name = 'ForexDocuments1763700001500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE forex_documents (
        id text PRIMARY KEY,
        file_id text NOT NULL REFERENCES forex_files(id),
        stored_document_id text NOT NULL REFERENCES stored_documents(id),
        kind text NOT NULL CONSTRAINT forex_documents_kind_chk CHECK (kind IN
          ('passport', 'visa', 'ticket', 'company_letter', 'admission_letter', 'medical_letter', 'form_a2', 'other')),
        content_type text NOT NULL CONSTRAINT forex_documents_content_type_chk
          CHECK (content_type IN ('application/pdf', 'image/jpeg', 'image/png')),
        size_bytes integer NOT NULL CONSTRAINT forex_documents_size_bytes_chk CHECK (size_bytes > 0 AND size_bytes <= 5000000),
        sha256 text NOT NULL CONSTRAINT forex_documents_sha256_chk CHECK (sha256 ~ '^[0-9a-f]{64}$'),
        filename text,
        uploaded_by text NOT NULL,
        created_at timestamptz NOT NULL,
        CONSTRAINT forex_documents_stored_document_id_key UNIQUE (stored_document_id)
      );
      CREATE INDEX forex_documents_file_id_idx ON forex_documents (file_id, created_at);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE forex_documents;`);
  }
}
