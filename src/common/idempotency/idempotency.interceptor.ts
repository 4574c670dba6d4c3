import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import type { Request, Response } from 'express';
import { from, lastValueFrom, Observable } from 'rxjs';
import { IsNull, Not } from 'typeorm';

import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { AfterCommit, finished, Tx } from '../../database/tx';
import { principalOf } from '../auth/auth.decorators';
import { canonicalJson } from '../canonical-json';
import { Clock } from '../clock';
import { sha256Hex } from '../crypto/secrets';
import { ReplayedResponse, toAppError } from '../errors/all-exceptions.filter';
import { AppError } from '../errors/app-error';
import { flavorOf, JSON_CONTENT_TYPE, renderError } from '../errors/error-body';
import { RequestValidationError } from '../errors/validation';
import { requestIdOf } from '../http/request-id';
import { IdempotencyRecord } from './idempotency-record.entity';
import { redactSecrets } from './redact-secrets';

const HEADER = 'Idempotency-Key';

export const idempotencyErrors = {
  required: () =>
    new AppError(
      400,
      'invalid_request',
      'idempotency_key_required',
      'Send an Idempotency-Key header on every POST',
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
 * The response as it will be stored: plain JSON with credentials redacted, and its exact text.
 * The text is JSON.stringify of the same value in the same key order, i.e. the bytes express's
 * res.json sent the first time (for a body without secrets); jsonb alone would reorder keys.
 */
function storedBody(body: unknown): { value: unknown; raw: string | null } {
  if (body === undefined || body === null) {
    return { value: null, raw: null };
  }
  const value = redactSecrets(JSON.parse(JSON.stringify(body)) as unknown);
  return { value, raw: JSON.stringify(value) };
}

/**
 * How long a request whose answer is finished after commit (a payment's rail call, see AfterCommit)
 * holds its key as in flight: longer than any rail call may take. If the process dies meanwhile, the
 * key is free again after this and a retry runs against what the database then holds.
 */
export const IN_FLIGHT_LEASE_MS = 120_000;

/** 64-bit advisory lock id for (scope, key). */
function lockId(parts: string[]): string {
  return BigInt.asIntN(64, BigInt(`0x${sha256Hex(parts.join('\u0000')).slice(0, 16)}`)).toString();
}

/**
 * Idempotency-Key semantics (README "Idempotency", docs/acp.md §2) on every mutating route.
 *
 * The whole request runs in one Postgres transaction (Tx): a stored result is replayed (or 422)
 * straight away; otherwise we take a transaction-scoped advisory lock on (caller, method, path,
 * key) with pg_try_advisory_xact_lock, so a concurrent twin gets 409 immediately; we look again
 * under the lock (the twin may just have committed); we run the handler inside a
 * savepoint; and we insert the record in the same transaction as the business write. A 4xx
 * rolls back the handler's writes to the savepoint and is stored; a 5xx rolls back everything
 * and stores nothing. A crash rolls back and releases the lock, so there is no stale in-flight
 * state to recover.
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

    return from(
      this.tx
        .run(async (m) => {
          const now = this.clock.now();
          const where = { ownerId, method: req.method, path, key };
          const replayOf = (stored: IdempotencyRecord) => {
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
          // Fast path: a finished request replays without contending for the lock, so many
          // simultaneous retries of a completed key all get the stored answer, not 409.
          const done = await m.findOneBy(IdempotencyRecord, where);
          if (done && done.expiresAt > now) {
            if (done.pendingUntil && done.pendingUntil > now) {
              // Its first phase committed; the answer is still being finished (AfterCommit).
              throw idempotencyErrors.inFlight();
            }
            if (!done.pendingUntil) {
              return replayOf(done);
            }
          }
          const [{ locked }] = await m.query<{ locked: boolean }[]>(
            'SELECT pg_try_advisory_xact_lock($1::bigint) AS locked',
            [lockId([ownerId, req.method, path, key])],
          );
          if (!locked) {
            throw idempotencyErrors.inFlight();
          }
          // Expired records, and in-flight ones whose lease ran out (their process died).
          await m.query(
            'DELETE FROM idempotency_records WHERE owner_id = $1 AND method = $2 AND path = $3 AND key = $4 AND (expires_at <= $5 OR pending_until <= $5)',
            [ownerId, req.method, path, key, now],
          );
          // Under the lock: the twin may have committed between the fast path and the lock.
          const stored = await m.findOneBy(IdempotencyRecord, where);
          if (stored) {
            if (stored.pendingUntil) {
              throw idempotencyErrors.inFlight();
            }
            return replayOf(stored);
          }
          let status: number;
          let body: unknown;
          let error: AppError | null = null;
          try {
            body = await this.tx.savepoint('idem_handler', () =>
              lastValueFrom(next.handle(), { defaultValue: undefined }),
            );
            status = successStatus;
          } catch (err) {
            error = toAppError(err, req);
            if (error.status >= 500 || error instanceof RequestValidationError) {
              throw err;
            }
            status = error.status;
            body = renderError(error, flavor, requestIdOf(req), req.path);
          }
          if (body instanceof AfterCommit) {
            // The answer is final only after commit: hold the key as in flight until it is.
            await m.insert(IdempotencyRecord, {
              ownerId,
              method: req.method,
              path,
              key,
              requestHash,
              statusCode: status,
              pendingUntil: new Date(now.getTime() + IN_FLIGHT_LEASE_MS),
              expiresAt: new Date(now.getTime() + this.config.idempotencyTtlHours * 3600_000),
            });
            return { replay: false as const, pending: body as AfterCommit<unknown>, status };
          }
          const saved = storedBody(body);
          await m.insert(IdempotencyRecord, {
            ownerId,
            method: req.method,
            path,
            key,
            requestHash,
            statusCode: status,
            responseBody: saved.value as object,
            responseRaw: saved.raw,
            expiresAt: new Date(now.getTime() + this.config.idempotencyTtlHours * 3600_000),
          });
          return error
            ? { replay: false as const, error }
            : { replay: false as const, status, body };
        })
        .then(async (outcome) => {
          if ('pending' in outcome && outcome.pending) {
            return this.finishPending(outcome.pending, outcome.status, {
              ownerId,
              method: req.method,
              path,
              key,
            });
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

  /**
   * Second phase of an AfterCommit answer: finish it (outside any transaction), then store the
   * final answer on the in-flight record. If finishing fails, the record is removed so the key can
   * be retried at once (what the retry meets is what the database holds by then).
   */
  private async finishPending(
    pending: AfterCommit<unknown>,
    status: number,
    where: { ownerId: string; method: string; path: string; key: string },
  ): Promise<unknown> {
    let body: unknown;
    try {
      body = await pending.finish();
    } catch (err) {
      await this.tx
        .run((m) => m.delete(IdempotencyRecord, { ...where, pendingUntil: Not(IsNull()) }))
        .catch(() => undefined);
      throw err;
    }
    const saved = storedBody(body);
    await this.tx.run((m) =>
      m.update(IdempotencyRecord, where, {
        statusCode: status,
        responseBody: saved.value as object,
        responseRaw: saved.raw,
        pendingUntil: null,
      }),
    );
    return body;
  }
}
