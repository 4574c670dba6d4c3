import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

import { batchColumns, batchUpdate } from '../../database/batch';
import { deleteExpiredRows } from '../../database/expiry';
import { personalRows } from '../../database/personal-rows';
import { queryPrepared } from '../../database/prepared';
import { QueuedStatement, Tx } from '../../database/tx';

/** A key's scope: (owner, method, path, key) and the advisory lock id of the four. */
export interface KeyScope {
  ownerId: string;
  method: string;
  path: string;
  key: string;
  /** The advisory lock id of (owner, method, path, key). */
  lock: string;
}

/** What the claim statement answers (and what a second look at the key reads). */
export interface ClaimRow {
  locked: boolean | null;
  claimed_id: string | null;
  request_hash: string | null;
  status_code: number | null;
  /** The answer's text, as first sent (secrets redacted); null for an answer without a body. */
  response_raw: string | null;
  pending_until: Date | null;
  expires_at: Date | null;
  /** The payment the key's first run recorded (an answer finished after commit), if any. */
  intent_id: string | null;
}

/**
 * The claim, in one statement (docs/security.md "Idempotency"), sent as a prepared statement (`queryPrepared`). `existing` is the key's record as the
 * statement's snapshot sees it; a live one (unexpired, and finished or still within its in-flight
 * lease) takes no lock and is answered from (replay, 422 or 409). Otherwise the advisory lock is
 * tried (never waited for: a concurrent twin holds it, 409), and under it the record is inserted
 * in flight, or an expired record or one whose lease ran out (its process died) is overwritten in
 * place. A record whose lease ran out keeps the payment its first run recorded (`intent_id`) when the
 * same request takes it over: the retry answers that payment (docs/security.md "Idempotency").
 * `locked` true with nothing claimed means a twin committed its record after the snapshot was
 * taken: `claim` then looks again.
 */
const CLAIM_SQL = `
WITH existing AS (
  SELECT request_hash, status_code, response_raw, pending_until, expires_at, intent_id
    FROM idempotency_records
   WHERE owner_id = $1::text AND method = $2::text AND path = $3::text AND key = $4::text
), lock AS (
  SELECT CASE
           WHEN EXISTS (SELECT 1 FROM existing
                         WHERE expires_at > $8::timestamptz
                           AND (pending_until IS NULL OR pending_until > $8::timestamptz))
           THEN NULL
           ELSE pg_try_advisory_xact_lock($9::bigint)
         END AS locked
), claim AS (
  INSERT INTO idempotency_records AS r
         (owner_id, method, path, key, request_hash, status_code, pending_until, expires_at)
  SELECT $1, $2, $3, $4, $5::text, $6::int, $7::timestamptz, $10::timestamptz
    FROM lock WHERE lock.locked
  ON CONFLICT (owner_id, method, path, key) DO UPDATE
     SET request_hash = EXCLUDED.request_hash, status_code = EXCLUDED.status_code,
         response_raw = NULL, pending_until = EXCLUDED.pending_until,
         created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at,
         intent_id = CASE WHEN r.expires_at > $8::timestamptz AND r.request_hash = EXCLUDED.request_hash
                          THEN r.intent_id END
   WHERE r.expires_at <= $8::timestamptz OR r.pending_until <= $8::timestamptz
  RETURNING r.id
)
SELECT lock.locked, (SELECT id FROM claim)::text AS claimed_id, e.*
  FROM lock LEFT JOIN existing e ON true`;

/**
 * A refusal (4xx) stored after its transaction rolled back, in one statement under the same
 * advisory lock, unless a twin holds or has already answered the key meanwhile.
 */
const STORE_REFUSAL_SQL = `
INSERT INTO idempotency_records AS r
       (owner_id, method, path, key, request_hash, status_code, response_raw, expires_at)
SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::int, $7::text, $8::timestamptz
 WHERE pg_try_advisory_xact_lock($10::bigint)
ON CONFLICT (owner_id, method, path, key) DO UPDATE
   SET request_hash = EXCLUDED.request_hash, status_code = EXCLUDED.status_code,
       response_raw = EXCLUDED.response_raw, intent_id = NULL,
       pending_until = NULL, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
 WHERE r.expires_at <= $9::timestamptz OR r.pending_until <= $9::timestamptz`;

/** An answer stored on a claimed record (by its id). */
export interface Answer {
  id: string;
  status: number;
  raw: string | null;
}

/**
 * The final answers on claimed records (one per request: the answer's text, its only copy),
 * queued for the commit (`Tx.writeBeforeCommit`) so they share a statement with the audit rows.
 */
const ANSWER_COLUMNS = batchColumns<Answer>({
  id: ['bigint', (a) => a.id],
  status_code: ['int', (a) => a.status],
  response_raw: ['text', (a) => a.raw],
  pending_until: ['timestamptz', () => null],
});

/** The batch writer of `Answer`s, for `Tx.writeBeforeCommit`. */
export function storeAnswers(answers: Answer[]): QueuedStatement {
  return batchUpdate('idempotency_records', 'id', ANSWER_COLUMNS, answers);
}

/** The payment recorded under a claimed key, written with the commit of the request's first transaction. */
export interface KeyPaymentRow {
  id: string;
  intentId: string;
}

const PAYMENT_COLUMNS = batchColumns<KeyPaymentRow>({
  id: ['bigint', (a) => a.id],
  intent_id: ['text', (a) => a.intentId],
});

/** The batch writer of `KeyPaymentRow`s, for `Tx.writeBeforeCommit`. */
export function storeKeyPayments(rows: KeyPaymentRow[]): QueuedStatement {
  return batchUpdate('idempotency_records', 'id', PAYMENT_COLUMNS, rows);
}

/** Removes expired idempotency records (the retention job, src/retention); returns how many. */
export async function deleteExpiredRecords(
  manager: EntityManager,
  now: Date,
  limit: number | null = null,
): Promise<number> {
  return deleteExpiredRows(manager, { table: 'idempotency_records', key: 'id' }, now, limit);
}

/**
 * Erasure (src/personal-data): the stored responses of these credentials (by principal id, any
 * kind; they may echo personal fields) are removed at once rather than at expiry; returns how many.
 */
export async function deleteRecordsOfOwners(manager: EntityManager, principalIds: string[]) {
  const [row] = await manager.query<{ n: number }[]>(
    `WITH d AS (DELETE FROM idempotency_records
                 WHERE substr(owner_id, strpos(owner_id, ':') + 1) = ANY($1::text[]) RETURNING 1)
     SELECT count(*)::int AS n FROM d`,
    [principalIds],
  );
  return row.n;
}

/** The live record of a key, if any (MCP tools ask before they call the REST route). */
export async function findRecord(
  manager: EntityManager,
  scope: { ownerId: string; method: string; path: string; key: string },
): Promise<{ expiresAt: Date } | null> {
  const [row] = await manager.query<{ expires_at: Date }[]>(
    `SELECT expires_at FROM idempotency_records
      WHERE owner_id = $1 AND method = $2 AND path = $3 AND key = $4`,
    [scope.ownerId, scope.method, scope.path, scope.key],
  );
  return row ? { expiresAt: row.expires_at } : null;
}

/**
 * The owner of idempotency_records (docs/architecture.md "Table owners"); IdempotencyInterceptor
 * keeps the logic. Exported functions above serve the retention job, erasure and MCP.
 */
@Injectable()
export class IdempotencyRecordRepository {
  constructor(private readonly tx: Tx) {}

  /** The claim (`CLAIM_SQL`): one prepared statement in the request's transaction. */
  async claim(
    scope: KeyScope,
    claim: {
      requestHash: string;
      status: number;
      pendingUntil: Date;
      expiresAt: Date;
      now: Date;
    },
  ): Promise<ClaimRow> {
    const [row] = (await queryPrepared(this.tx.manager, CLAIM_SQL, [
      scope.ownerId,
      scope.method,
      scope.path,
      scope.key,
      claim.requestHash,
      claim.status,
      claim.pendingUntil,
      claim.now,
      scope.lock,
      claim.expiresAt,
    ])) as ClaimRow[];
    return row;
  }

  /** The key's record as this statement sees it (after a twin committed under the claim's nose). */
  async findByKey(scope: KeyScope): Promise<ClaimRow | undefined> {
    const [row] = await this.tx.manager.query<ClaimRow[]>(
      `SELECT request_hash, status_code, response_raw, pending_until, expires_at, intent_id
         FROM idempotency_records WHERE owner_id = $1 AND method = $2 AND path = $3 AND key = $4`,
      [scope.ownerId, scope.method, scope.path, scope.key],
    );
    return row;
  }

  /** A refusal stored after its transaction rolled back (`STORE_REFUSAL_SQL`), one statement. */
  async storeRefusal(
    scope: KeyScope,
    refusal: {
      requestHash: string;
      status: number;
      raw: string | null;
      expiresAt: Date;
      now: Date;
    },
  ): Promise<void> {
    await this.tx.manager.query(STORE_REFUSAL_SQL, [
      scope.ownerId,
      scope.method,
      scope.path,
      scope.key,
      refusal.requestHash,
      refusal.status,
      refusal.raw,
      refusal.expiresAt,
      refusal.now,
      scope.lock,
    ]);
  }

  /**
   * Renews the lease of the key's in-flight record while its request still runs (one statement, no
   * transaction of its own); a record already answered (pending_until null) is left alone.
   */
  async renewInFlight(scope: KeyScope, until: Date): Promise<void> {
    await this.tx.manager.query(
      `UPDATE idempotency_records SET pending_until = $5::timestamptz
        WHERE owner_id = $1 AND method = $2 AND path = $3 AND key = $4 AND pending_until IS NOT NULL`,
      [scope.ownerId, scope.method, scope.path, scope.key, until],
    );
  }

  /**
   * Ends the lease of the key's in-flight record now, so a retry takes the key over at once and
   * answers the payment recorded on it (the record is kept: it names that payment).
   */
  async releaseInFlight(scope: KeyScope, now: Date): Promise<void> {
    await this.renewInFlight(scope, now);
  }

  /** Stores the final answer on the key's in-flight record (one statement, no transaction of its own). */
  async storeFinalAnswer(scope: KeyScope, status: number, raw: string | null): Promise<void> {
    await this.tx.manager.query(
      `UPDATE idempotency_records
          SET status_code = $5::int, response_raw = $6::text, pending_until = NULL
        WHERE owner_id = $1 AND method = $2 AND path = $3 AND key = $4`,
      [scope.ownerId, scope.method, scope.path, scope.key, status, raw],
    );
  }
}

/** Erasure's reach into idempotency_records: rows that can be a person's (docs/personal-data.md "The personal-data map"). */
export const idempotencyRecordsPersonalRows = personalRows(
  'idempotency_records',
  't.owner_id = ANY(s.creds)',
);
