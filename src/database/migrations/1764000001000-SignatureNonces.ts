import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * RFC 9421 signature nonces already used (docs/http-message-signatures.md "Nonces", docs/ucp.md
 * "Request signatures"): one row per (signer, keyid, nonce), kept as a SHA-256 so a long nonce or
 * keyid cannot bloat the index, until the signature could no longer be accepted anyway
 * (`expires_at`); the retention sweep deletes it after that. Owner:
 * src/common/signing/http-message-signatures/postgres-nonce-store.ts.
 */
export class SignatureNonces1764000001000 implements MigrationInterface {
  name = 'SignatureNonces1764000001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE signature_nonces (
        nonce_hash text PRIMARY KEY,
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX signature_nonces_expires_at_idx ON signature_nonces (expires_at);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE signature_nonces`);
  }
}
