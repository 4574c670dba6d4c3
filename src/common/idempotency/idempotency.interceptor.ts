import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import type { Request, Response } from 'express';
import { from, lastValueFrom, Observable } from 'rxjs';

import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { AfterCommit, finished, RefusalKeepingWrites, Tx } from '../../database/tx';
import { principalOf } from '../auth/auth.decorators';
import { canonicalJson } from '../canonical-json';
import { Clock } from '../clock';
import { sha256Hex } from '../crypto/secrets';
import { ReplayedResponse, toAppError } from '../errors/all-exceptions.filter';
import { AppError } from '../errors/app-error';
import { flavorOf, JSON_CONTENT_TYPE, renderError } from '../errors/error-body';
import { RequestValidationError } from '../errors/validation';
import { requestIdOf } from '../http/request-id';
import {
  Answer,
  ClaimRow,
  IdempotencyRecordRepository,
  KeyPaymentRow,
  KeyScope,
  storeAnswers,
  storeKeyPayments,
} from './idempotency-record.repository';
import { keyAnswerOf, KeyAnswerStore, setKeyAnswer } from './key-answer';
import { redactedJson } from './redact-secrets';

const HEADER = 'Idempotency-Key';

export const idempotencyErrors = {
  required: (writes = 'POST') =>
    new AppError(
      400,
      'invalid_request',
      'idempotency_key_required',
      `Send an Idempotency-Key header on every ${writes}`,
      HEADER,
    ),
  invalid: () =>
    new AppError(
      400,
      'invalid_request',
      'invalid',
      'Idempotency-Key must be 1–255 characters',
      HEADER,
    ),
  conflict: () =>
    new AppError(
      422,
      'invalid_request',
      'idempotency_conflict',
      'This Idempotency-Key was used with a different request body',
    ),
  inFlight: () =>
    new AppError(
      409,
      'invalid_request',
      'idempotency_in_flight',
      'A request with this Idempotency-Key is still in progress; retry shortly',
      undefined,
      {
        retryAfterSeconds: 1,
      },
    ),
};

/**
 * The response's text as it will be stored (its only copy), credentials redacted: JSON.stringify
 * of the plain JSON value in the same key order, i.e. the bytes express's res.json sent the first
 * time (for a body without secrets). Null for a response without a body.
 */
function storedText(body: unknown): string | null {
  if (body === undefined || body === null) {
    return null;
  }
  return redactedJson(body);
}

/**
 * How long a request whose answer is finished after commit (a payment's rail call, see AfterCommit)
 * holds its key as in flight without renewing it: its process renews the lease every
 * IN_FLIGHT_RENEW_MS for as long as it runs (however long the rail takes), so a key whose holder
 * died (the process, or Postgres under it) is free again within this many seconds, and the retry
 * that takes it over answers the payment recorded on it (docs/security.md "Idempotency").
 * The lease is set at the claim and renewed after commit.
 */
export const IN_FLIGHT_LEASE_MS = 15_000;

/** How often a running request renews its in-flight lease (IN_FLIGHT_LEASE_MS). */
export const IN_FLIGHT_RENEW_MS = 5_000;

/**
 * Retry-After (seconds) on an answer that is the payment still in progress (KeyPayment.unfinished):
 * that answer is not stored, and a retry with the same key answers the payment's state then.
 */
export const IN_PROGRESS_RETRY_AFTER_S = 5;

/** 64-bit advisory lock id for (scope, key). */
function lockId(parts: string[]): string {
  return BigInt.asIntN(64, BigInt(`0x${sha256Hex(parts.join('\u0000')).slice(0, 16)}`)).toString();
}

/** Where a key stands after `claim`, the interceptor's one statement before the handler runs. */
type Claim =
  /**
   * `resumed`: the key's record was this same request's, whose first transaction committed and
   * whose process died before its answer was stored (its lease ran out); `intentId` is the payment
   * it recorded (null when it recorded none on the key).
   */
  | { kind: 'claimed'; id: string; resumed: { intentId: string | null } | null }
  | { kind: 'in_flight' }
  | { kind: 'stored'; record: StoredRecord }
  | { kind: 'raced' };

interface StoredRecord {
  requestHash: string;
  statusCode: number;
  responseBody: unknown;
  responseRaw: string | null;
}

/** What the handler did: its answer, or what it threw. */
type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

function settle(p: Promise<unknown>): Promise<Settled> {
  return p.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}

/**
 * Route metadata (`@Idempotent({ pipelined: true })`): the handler starts beside its claim instead
 * of after it. For handlers whose every effect before commit is a statement of the request's
 * transaction (no network call, no queue job, nothing outside Postgres until commit).
 */
export const PIPELINED_CLAIM = 'idempotency:pipelined-claim';

/** The key was not claimed by a pipelined request: its transaction rolls back, then it is answered. */
class NotClaimed extends Error {
  constructor(readonly claim: Exclude<Claim, { kind: 'claimed' }>) {
    super(`idempotency key not claimed (${claim.kind})`);
  }
}

/** A 4xx to be stored once the handler's writes (and the claim with them) have rolled back. */
class RefusalToStore extends Error {
  constructor(
    readonly error: AppError,
    readonly body: unknown,
  ) {
    super(error.message);
  }
}

/**
 * Idempotency-Key semantics (docs/security.md "Idempotency", docs/acp.md §2) on every mutating route.
 *
 * The whole request runs in one Postgres transaction (Tx). Its first statement is the claim
 * (`CLAIM_SQL`, idempotency-record.repository.ts): a stored result is replayed (or 422) straight away; otherwise a
 * transaction-scoped advisory lock on (caller, method, path, key) is tried with
 * pg_try_advisory_xact_lock, so a concurrent twin gets 409 immediately, and under it the record is
 * inserted as in flight. The handler runs, and its answer is written on that record in the same
 * transaction as the business write, by an UPDATE queued for the commit (`Tx.writeBeforeCommit`,
 * sent in one statement with the request's audit rows). A 5xx rolls back everything, claim included, and
 * stores nothing. A crash rolls back and releases the lock, so there is no stale in-flight state
 * to recover. A 4xx rolls back the whole transaction too (the handler's writes and the claim) and
 * is then stored by one statement of its own (`STORE_REFUSAL_SQL`) under the same try-lock: no
 * savepoint is needed on the way to a success. A RefusalKeepingWrites keeps the handler's writes
 * and stores its refusal on the claim in the same transaction.
 *
 * Two refinements: a RequestValidationError (the global ValidationPipe, or a hand check of the
 * body, refused it before any write) is not stored either, and the caller may fix the body and
 * retry with the same key (docs/acp.md "Deviations"); and the stored body has issued credentials
 * replaced by "[shown once]" (redact-secrets.ts), so a replayed create returns the redacted body,
 * never the plaintext.
 *
 * A replay sends the stored response text (response_raw) byte for byte with the same
 * Content-Type, not the jsonb value, whose key order Postgres does not keep.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly records: IdempotencyRecordRepository,
  ) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = ctx.switchToHttp().getRequest<Request>();
    const res = ctx.switchToHttp().getResponse<Response>();
    const flavor = flavorOf(req.path);
    const key = req.header(HEADER);
    const principal = principalOf(req);
    if (key === undefined) {
      if (flavor === 'acp') {
        throw idempotencyErrors.required();
      }
      if (req.path.startsWith('/ucp/')) {
        // UCP's REST binding requires the key on every write (docs/ucp.md "Idempotency");
        // rendered as a UCP error_response by UcpExceptionFilter.
        throw idempotencyErrors.required('UCP write (POST, PUT)');
      }
      // /v1: the key is optional; the write still runs in one transaction.
      return from(
        this.tx
          .run(() => lastValueFrom(next.handle(), { defaultValue: undefined }))
          .then((body) => finished(body)),
      );
    }
    if (key.length < 1 || key.length > 255) {
      throw idempotencyErrors.invalid();
    }
    res.setHeader(HEADER, key);
    const ownerId = principal ? `${principal.kind}:${principal.id}` : `anon:${req.ip ?? ''}`;
    const path = req.originalUrl.split('?')[0];
    const requestHash = sha256Hex(canonicalJson(req.body as unknown));
    const successStatus =
      (Reflect.getMetadata(HTTP_CODE_METADATA, ctx.getHandler()) as number | undefined) ??
      (req.method === 'POST' ? 201 : 200);
    const scope: KeyScope = {
      ownerId,
      method: req.method,
      path,
      key,
      lock: lockId([ownerId, req.method, path, key]),
    };
    // Joined to a transaction someone else owns (not the case for HTTP routes today): a 4xx can
    // only roll back to a savepoint, since the whole transaction is not ours to roll back.
    const nested = this.tx.active;
    const pipelined = !nested && Reflect.getMetadata(PIPELINED_CLAIM, ctx.getHandler()) === true;
    const now = this.clock.now();
    const replayOf = (stored: StoredRecord) => {
      if (stored.requestHash !== requestHash) {
        throw idempotencyErrors.conflict();
      }
      return {
        replay: true as const,
        status: stored.statusCode,
        body: stored.responseBody,
        raw: stored.responseRaw,
      };
    };
    const expiresAt = new Date(now.getTime() + this.config.idempotencyTtlHours * 3600_000);
    // Set when this request took over its own key from a run that died after its first commit.
    let resumed: { intentId: string | null } | null = null;
    // Held from the commit of an answer finished after commit (the rail call runs in between).
    const lease = new InFlightLease(this.records, this.clock, scope);

    return from(
      this.tx
        .run(async () => {
          const claimInput = {
            requestHash,
            status: successStatus,
            pendingUntil: new Date(now.getTime() + IN_FLIGHT_LEASE_MS),
            expiresAt,
            now,
          };
          // An answer made final by a later transaction is stored on the claim by that
          // transaction's commit, through the store the route is handed (KeyAnswer). That
          // transaction runs after this one committed, so after the claim is known.
          let claimedId: string | null = null;
          const keyAnswer: KeyAnswerStore = new KeyAnswerStore(this.tx, (answer) => {
            if (claimedId === null) {
              throw new Error('an answer stored on a key that was not claimed');
            }
            return this.tx.writeBeforeCommit<Answer>(
              'idempotency_answer',
              { id: claimedId, status: successStatus, raw: storedText(answer) },
              storeAnswers,
            );
          });
          const handle = () => lastValueFrom(next.handle(), { defaultValue: undefined });
          let handled: Promise<Settled>;
          if (pipelined) {
            // The claim is written first and the handler starts at once: its first statements
            // follow the claim on the wire and share its round trip. Until the claim is known
            // nothing is committed; a key not claimed rolls back whatever the handler did.
            const claiming = this.claim(scope, claimInput);
            setKeyAnswer(req, keyAnswer);
            handled = settle(handle());
            const claim = await claiming.catch(async (err: unknown) => {
              keyAnswer.claimKnown(null);
              await handled;
              throw err;
            });
            if (claim.kind !== 'claimed') {
              // Nothing of the handler may still be using the connection when it rolls back.
              keyAnswer.claimKnown(null);
              await handled;
              throw new NotClaimed(claim);
            }
            claimedId = claim.id;
            resumed = claim.resumed;
            keyAnswer.claimKnown(claim.resumed?.intentId ?? null);
          } else {
            const claim = await this.claim(scope, claimInput);
            if (claim.kind === 'in_flight' || claim.kind === 'raced') {
              throw idempotencyErrors.inFlight();
            }
            if (claim.kind === 'stored') {
              return replayOf(claim.record);
            }
            claimedId = claim.id;
            resumed = claim.resumed;
            keyAnswer.claimKnown(claim.resumed?.intentId ?? null);
            setKeyAnswer(req, keyAnswer);
            handled = settle(nested ? this.tx.savepoint('idem_handler', handle) : handle());
          }
          let status: number;
          let body: unknown;
          let error: AppError | null = null;
          const settled = await handled;
          if (settled.ok) {
            body = settled.value;
            status = successStatus;
          } else {
            const thrown = settled.error;
            const kept = thrown instanceof RefusalKeepingWrites;
            const err = kept ? thrown.error : thrown;
            error = toAppError(err, req);
            if (error.status >= 500 || error instanceof RequestValidationError) {
              throw err;
            }
            status = error.status;
            body = renderError(error, flavor, requestIdOf(req), req.path);
            if (!kept && !nested) {
              // Roll back the handler's writes with the claim; stored after the rollback.
              throw new RefusalToStore(error, body);
            }
          }
          if (body instanceof AfterCommit) {
            // The answer is final only after commit: the claim already holds the key in flight
            // (pending_until) with this status, until finishPending (or keyAnswer) stores it. The
            // payment recorded is kept on the key with this commit: a retry after a crash finds it.
            const intentId = keyAnswer.notedPayment;
            if (intentId !== null) {
              await this.tx.writeBeforeCommit<KeyPaymentRow>(
                'idempotency_payment',
                { id: claimedId, intentId },
                storeKeyPayments,
              );
            }
            // The lease is renewed from the commit on (the payment's rail call follows it, before
            // finishPending) until the answer is stored.
            this.tx.afterCommit(() => lease.start());
            return { replay: false as const, pending: body as AfterCommit<unknown>, status };
          }
          await this.tx.writeBeforeCommit<Answer>(
            'idempotency_answer',
            { id: claimedId, status, raw: storedText(body) },
            storeAnswers,
          );
          return error
            ? { replay: false as const, error }
            : { replay: false as const, status, body };
        })
        .catch(async (err: unknown) => {
          if (err instanceof NotClaimed) {
            // Rolled back: the key is a twin's (409) or already answered (replayed).
            if (err.claim.kind !== 'stored') {
              throw idempotencyErrors.inFlight();
            }
            return replayOf(err.claim.record);
          }
          if (!(err instanceof RefusalToStore)) {
            throw err;
          }
          if (resumed) {
            // The key names a payment whose first transaction committed: a refusal now could
            // contradict it, so it is answered but never stored; the key stays free for a retry.
            throw err.error;
          }
          await this.storeRefusal(scope, err, requestHash, expiresAt);
          throw err.error;
        })
        .then(async (outcome) => {
          if ('pending' in outcome && outcome.pending) {
            return this.finishPending(
              outcome.pending,
              outcome.status,
              scope,
              keyAnswerOf(req),
              lease,
              res,
            );
          }
          if ('error' in outcome && outcome.error) {
            throw outcome.error;
          }
          if (outcome.replay) {
            res.setHeader('Idempotent-Replayed', 'true');
            if (outcome.status !== successStatus) {
              throw new ReplayedResponse(outcome.status, outcome.body, outcome.raw);
            }
            if (outcome.raw !== null) {
              // The stored text, byte for byte (a string reply is sent as is by res.send).
              res.setHeader('Content-Type', JSON_CONTENT_TYPE);
              return outcome.raw;
            }
          }
          return outcome.body;
        }),
    );
  }

  /** One statement (the repository's claim); a second one only when a twin committed in between. */
  private async claim(
    scope: KeyScope,
    claim: {
      requestHash: string;
      status: number;
      pendingUntil: Date;
      expiresAt: Date;
      now: Date;
    },
  ): Promise<Claim> {
    const row = await this.records.claim(scope, claim);
    if (row.claimed_id !== null) {
      // Taken over from this same request, whose first transaction committed (pending_until set)
      // and whose lease ran out: its process or Postgres died before the answer was stored.
      const ownRunDied =
        row.pending_until !== null &&
        row.request_hash === claim.requestHash &&
        row.expires_at !== null &&
        row.expires_at > claim.now;
      return {
        kind: 'claimed',
        id: row.claimed_id,
        resumed: ownRunDied ? { intentId: row.intent_id } : null,
      };
    }
    if (row.locked === false) {
      return { kind: 'in_flight' };
    }
    if (row.locked === null) {
      // A live record, seen without taking the lock.
      return liveRecord(row, claim.now);
    }
    // Locked, but the insert met a record the snapshot did not show: a twin committed just now.
    // Under the lock, look again (this statement sees it).
    const again = await this.records.findByKey(scope);
    return again ? liveRecord(again, claim.now) : { kind: 'raced' };
  }

  /** After a 4xx rolled its transaction back: its answer, stored by one statement. */
  private async storeRefusal(
    scope: KeyScope,
    refusal: RefusalToStore,
    requestHash: string,
    expiresAt: Date,
  ): Promise<void> {
    await this.records.storeRefusal(scope, {
      requestHash,
      status: refusal.error.status,
      raw: storedText(refusal.body),
      expiresAt,
      now: this.clock.now(),
    });
  }

  /**
   * Second phase of an AfterCommit answer: finish it (outside any transaction), renewing the key's
   * in-flight lease meanwhile (IN_FLIGHT_RENEW_MS), then store the final answer on the in-flight
   * record (one statement, no transaction of its own) unless the transaction that made it final
   * already stored it (`keyAnswer`). If finishing fails, the lease is ended at once: a retry takes
   * the key over straight away and answers the payment recorded on it. If even that fails (Postgres
   * is down), the lease runs out within IN_FLIGHT_LEASE_MS, as when the process dies.
   * An answer that is the payment still in progress (KeyPayment.unfinished) on a key naming its
   * payment is not stored either: the lease is ended the same way and the answer carries
   * Retry-After, so the retry answers the payment's state then and stores it once it is final (the
   * stored answer never disagrees with the payment; docs/security.md "A retry after a 503 or a
   * crash").
   */
  private async finishPending(
    pending: AfterCommit<unknown>,
    status: number,
    scope: KeyScope,
    keyAnswer: KeyAnswerStore | null,
    lease: InFlightLease,
    res: Response,
  ): Promise<unknown> {
    let body: unknown;
    try {
      body = await pending.finish();
    } catch (err) {
      await lease.stop();
      await this.records.releaseInFlight(scope, this.clock.now()).catch(() => undefined);
      throw err;
    }
    await lease.stop();
    if (keyAnswer?.stored) {
      return body;
    }
    if (keyAnswer?.unfinished && keyAnswer.keyPayment !== null) {
      await this.records.releaseInFlight(scope, this.clock.now()).catch(() => undefined);
      res.setHeader('Retry-After', String(IN_PROGRESS_RETRY_AFTER_S));
      return body;
    }
    await this.records.storeFinalAnswer(scope, status, storedText(body));
    return body;
  }
}

/**
 * The in-flight lease of a key whose answer is finished after commit (IN_FLIGHT_LEASE_MS): renewed
 * every IN_FLIGHT_RENEW_MS from the commit until the answer is stored, by one statement with no
 * transaction of its own; a renewal that fails (Postgres away) is skipped. Not renewed at once: a
 * payment whose rail answers within IN_FLIGHT_RENEW_MS costs no statement more. Should a retry take
 * the key over while this request still runs (its first transaction outlasted the lease), both
 * answer the same payment: the rail call is idempotent per intent and its outcome is recorded once
 * (docs/architecture.md "Payment pipeline").
 */
class InFlightLease {
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private renewing: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly records: IdempotencyRecordRepository,
    private readonly clock: Clock,
    private readonly scope: KeyScope,
  ) {}

  start(): void {
    if (this.stopped || this.timer) {
      return;
    }
    this.timer = setInterval(() => {
      this.renewing = this.records
        .renewInFlight(this.scope, new Date(this.clock.now().getTime() + IN_FLIGHT_LEASE_MS))
        .catch(() => undefined);
    }, IN_FLIGHT_RENEW_MS);
    this.timer.unref();
  }

  /** No renewal after this resolves (one already sent is waited for). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
    await this.renewing;
  }
}

/** A record found for the key: replayed when finished, in flight while its lease runs. */
function liveRecord(row: ClaimRow, now: Date): Claim {
  if (row.request_hash === null || row.status_code === null) {
    return { kind: 'raced' };
  }
  if (row.pending_until !== null && row.pending_until > now) {
    return { kind: 'in_flight' };
  }
  if (row.pending_until !== null || (row.expires_at !== null && row.expires_at <= now)) {
    // Its lease ran out or it expired; only the lock's holder may take it over: ask again later.
    return { kind: 'raced' };
  }
  return {
    kind: 'stored',
    record: {
      requestHash: row.request_hash,
      statusCode: row.status_code,
      // The answer's value for those who re-render it (UCP errors, MCP tools); a replay sends the text.
      responseBody: row.response_raw === null ? null : (JSON.parse(row.response_raw) as unknown),
      responseRaw: row.response_raw,
    },
  };
}
