import { MigrationInterface, QueryRunner } from 'typeorm';

/** Tenants, people, credentials, idempotency and request-signature replay protection. */
export class Foundation1763700000000 implements MigrationInterface {
  name = 'Foundation1763700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE workspaces (
        id text PRIMARY KEY,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE persons (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id),
        email text NOT NULL,
        name text NOT NULL,
        password_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT persons_email_key UNIQUE (email),
        CONSTRAINT persons_email_lower_chk CHECK (email = lower(email))
      );
      CREATE INDEX persons_workspace_id_idx ON persons (workspace_id);
      CREATE TABLE person_sessions (
        id text PRIMARY KEY,
        person_id text NOT NULL REFERENCES persons(id),
        token_hash text NOT NULL,
        csrf_secret_hash text NOT NULL,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT person_sessions_token_hash_key UNIQUE (token_hash)
      );
      CREATE TABLE api_keys (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id),
        name text NOT NULL,
        secret_hash text NOT NULL,
        hint text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz,
        CONSTRAINT api_keys_secret_hash_key UNIQUE (secret_hash)
      );
      CREATE INDEX api_keys_workspace_id_idx ON api_keys (workspace_id, created_at DESC);
      CREATE TABLE agents (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id),
        name text NOT NULL,
        role text NOT NULL CHECK (role IN ('seller', 'buyer', 'both')),
        credential_hash text NOT NULL,
        credential_hint text NOT NULL,
        public_key_pem text,
        public_key_alg text CHECK (public_key_alg IN ('ed25519', 'p256')),
        created_at timestamptz NOT NULL DEFAULT now(),
        disabled_at timestamptz,
        CONSTRAINT agents_credential_hash_key UNIQUE (credential_hash)
      );
      CREATE INDEX agents_workspace_id_idx ON agents (workspace_id, created_at DESC);
      CREATE TABLE protocol_keys (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id),
        agent_id text NOT NULL REFERENCES agents(id),
        role text NOT NULL CHECK (role IN ('merchant', 'buyer')),
        name text NOT NULL,
        secret_hash text NOT NULL,
        hint text NOT NULL,
        public_key_pem text,
        public_key_alg text CHECK (public_key_alg IN ('ed25519', 'p256')),
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz,
        CONSTRAINT protocol_keys_secret_hash_key UNIQUE (secret_hash)
      );
      CREATE INDEX protocol_keys_workspace_id_idx ON protocol_keys (workspace_id, created_at DESC);
      CREATE TABLE idempotency_records (
        id bigserial PRIMARY KEY,
        owner_id text NOT NULL,
        method text NOT NULL,
        path text NOT NULL,
        key text NOT NULL,
        request_hash text NOT NULL,
        status_code integer NOT NULL,
        response_body jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        CONSTRAINT idempotency_records_owner_id_method_path_key_key UNIQUE (owner_id, method, path, key)
      );
      CREATE INDEX idempotency_records_expires_at_idx ON idempotency_records (expires_at);
      CREATE TABLE seen_signatures (
        signature_hash text PRIMARY KEY,
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX seen_signatures_expires_at_idx ON seen_signatures (expires_at);
      CREATE TABLE audit_events (
        id bigserial PRIMARY KEY,
        workspace_id text NOT NULL,
        actor_type text NOT NULL,
        actor_id text NOT NULL,
        action text NOT NULL,
        subject_id text,
        data jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX audit_events_workspace_id_idx ON audit_events (workspace_id, created_at DESC);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE audit_events; DROP TABLE seen_signatures; DROP TABLE idempotency_records;
      DROP TABLE protocol_keys; DROP TABLE agents; DROP TABLE api_keys; DROP TABLE person_sessions;
      DROP TABLE persons; DROP TABLE workspaces;
    `);
  }
}
