import { MigrationInterface, QueryRunner } from 'typeorm';

/** Tables with a currency column; the database spells currencies one way: ISO 4217, upper case. */
const CURRENCY_TABLES = ['payment_intents', 'refunds', 'checkout_sessions', 'delegated_tokens'];
/** Stored lower case (the ACP wire spelling) before this migration; mapped at the entity since. */
const LOWER_CASE_BEFORE = ['checkout_sessions', 'delegated_tokens'];

const CHECKOUT_STATUSES = [
  'not_ready_for_payment',
  'ready_for_payment',
  'pending_approval',
  'complete_in_progress',
  'completed',
  'canceled',
  'expired',
];

/**
 * What the schema should have said from the start:
 * - indexes behind lookups that scanned: a receipt by id (payment_intents.receipt_id, one intent
 *   per receipt), the approval expiry sweep, the session expiry sweep and a person's sessions;
 * - CHECKs: approval amounts are positive, checkout session statuses are the known ones, and one
 *   currency spelling (upper case; the ACP tables stored 'inr': rows are rewritten here and the
 *   entities map to the wire spelling);
 * - foreign keys that were plain text columns: checkout_sessions.intent_id → payment_intents,
 *   rail_transfers.refund_id → refunds, payment_intents.receipt_id → chains (a receipt is the
 *   chain with the receipt's id). Every writer inserts the referenced row first in the same
 *   transaction (intent before session link, refund before its credit, receipt chain before the
 *   intent update), so they are checked immediately: no DEFERRABLE needed;
 * - signing_keys.private_key_pem holds only sealed keys (AES-256-GCM `v1.…`, see
 *   SigningKeyService). Keys an earlier version stored in plaintext are sealed at boot, where the
 *   encryption key is known, so the CHECK is added NOT VALID when such rows exist (new writes are
 *   checked at once) and validated here when there are none.
 */
export class Integrity1763700001000 implements MigrationInterface {
  name = 'Integrity1763700001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE UNIQUE INDEX payment_intents_receipt_id_key ON payment_intents (receipt_id) WHERE receipt_id IS NOT NULL;
      CREATE INDEX approvals_pending_expires_at_idx ON approvals (expires_at) WHERE status = 'pending';
      CREATE INDEX person_sessions_expires_at_idx ON person_sessions (expires_at);
      CREATE INDEX person_sessions_person_id_idx ON person_sessions (person_id);

      ALTER TABLE approvals ADD CONSTRAINT approvals_amount_paise_chk CHECK (amount_paise > 0);
      ALTER TABLE checkout_sessions ADD CONSTRAINT checkout_sessions_status_chk
        CHECK (status IN (${CHECKOUT_STATUSES.map((s) => `'${s}'`).join(', ')}));

      ALTER TABLE checkout_sessions ADD CONSTRAINT checkout_sessions_intent_id_fkey
        FOREIGN KEY (intent_id) REFERENCES payment_intents(id);
      ALTER TABLE rail_transfers ADD CONSTRAINT rail_transfers_refund_id_fkey
        FOREIGN KEY (refund_id) REFERENCES refunds(id);
      ALTER TABLE payment_intents ADD CONSTRAINT payment_intents_receipt_id_fkey
        FOREIGN KEY (receipt_id) REFERENCES chains(id);
    `);
    for (const table of CURRENCY_TABLES) {
      await q.query(
        `UPDATE ${table} SET currency = upper(currency) WHERE currency <> upper(currency)`,
      );
      await q.query(
        `ALTER TABLE ${table} ADD CONSTRAINT ${table}_currency_chk CHECK (currency ~ '^[A-Z]{3}$')`,
      );
    }
    await q.query(`
      ALTER TABLE signing_keys ADD CONSTRAINT signing_keys_private_key_sealed_chk
        CHECK (private_key_pem IS NULL OR private_key_pem LIKE 'v1.%') NOT VALID;
      COMMENT ON COLUMN signing_keys.private_key_pem IS
        'PKCS#8 PEM sealed with AES-256-GCM under SIGNING_KEY_ENCRYPTION_KEY (v1.<iv>.<tag>.<ct>); never plaintext';
    `);
    const [{ plaintext }] = (await q.query(
      `SELECT count(*)::int AS plaintext FROM signing_keys WHERE private_key_pem NOT LIKE 'v1.%'`,
    )) as { plaintext: number }[];
    if (plaintext === 0) {
      await q.query(
        `ALTER TABLE signing_keys VALIDATE CONSTRAINT signing_keys_private_key_sealed_chk`,
      );
    }
  }

  /**
   * Sealed signing keys stay sealed (the key to open them is not known here): a version before
   * this one boots only with SIGNING_PRIVATE_KEY set, or after retiring the sealed keys.
   */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      COMMENT ON COLUMN signing_keys.private_key_pem IS NULL;
      ALTER TABLE signing_keys DROP CONSTRAINT signing_keys_private_key_sealed_chk;
    `);
    for (const table of [...CURRENCY_TABLES].reverse()) {
      await q.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_currency_chk`);
      if (LOWER_CASE_BEFORE.includes(table)) {
        await q.query(`UPDATE ${table} SET currency = lower(currency)`);
      }
    }
    await q.query(`
      ALTER TABLE payment_intents DROP CONSTRAINT payment_intents_receipt_id_fkey;
      ALTER TABLE rail_transfers DROP CONSTRAINT rail_transfers_refund_id_fkey;
      ALTER TABLE checkout_sessions DROP CONSTRAINT checkout_sessions_intent_id_fkey;
      ALTER TABLE checkout_sessions DROP CONSTRAINT checkout_sessions_status_chk;
      ALTER TABLE approvals DROP CONSTRAINT approvals_amount_paise_chk;
      DROP INDEX person_sessions_person_id_idx;
      DROP INDEX person_sessions_expires_at_idx;
      DROP INDEX approvals_pending_expires_at_idx;
      DROP INDEX payment_intents_receipt_id_key;
    `);
  }
}
