import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Signed hash chains (the core of receipts): the service's Ed25519 signing keys, one head row per
 * chain (locked to serialise appends), and the append-only entries. chain_entries.created_at has
 * no default on purpose: it is part of the hashed bytes and always comes from the Clock.
 */
export class Chains1763700000100 implements MigrationInterface {
  name = 'Chains1763700000100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE signing_keys (
        kid text PRIMARY KEY,
        alg text NOT NULL CHECK (alg = 'EdDSA'),
        private_key_pem text,
        public_jwk jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        retired_at timestamptz
      );
      CREATE TABLE chains (
        id text PRIMARY KEY,
        head_hash text NOT NULL,
        length integer NOT NULL CHECK (length >= 0),
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE TABLE chain_entries (
        chain_id text NOT NULL REFERENCES chains(id),
        seq integer NOT NULL CHECK (seq >= 1),
        prev_hash text NOT NULL,
        hash text NOT NULL,
        payload jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        kid text NOT NULL REFERENCES signing_keys(kid),
        jws text NOT NULL,
        CONSTRAINT chain_entries_pkey PRIMARY KEY (chain_id, seq),
        CONSTRAINT chain_entries_hash_key UNIQUE (hash)
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE chain_entries; DROP TABLE chains; DROP TABLE signing_keys;`);
  }
}
