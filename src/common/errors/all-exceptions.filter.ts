import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';

import { isRetryableConflict } from '../../database/tx';
import { requestIdOf } from '../http/request-id';
import { AppError, commonErrors } from './app-error';
import { flavorOf, JSON_CONTENT_TYPE, renderError } from './error-body';
import { OUTAGE_RETRY_AFTER_SECONDS, outageOf } from './outage';

/**
 * Stored idempotent replays of an error response carry their exact status and body, and the
 * exact text first sent (null for records stored before that text was kept).
 */
export class ReplayedResponse extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly raw: string | null = null,
  ) {
    super('replayed');
  }
}

/**
 * Errors of the body parsers (http-errors with a `type`), mapped to our codes. Returns null for
 * anything else. Used by the HTTP pipeline (so the error leaves the parser already as an
 * AppError: Nest would otherwise turn a JSON SyntaxError into a bare BadRequestException) and
 * by toAppError as a fallback.
 */
export function bodyParserError(err: unknown, req: Request): AppError | null {
  if (!err || typeof err !== 'object') {
    return null;
  }
  const e = err as {
    type?: string;
    status?: number;
    expose?: boolean;
    limit?: number;
    message?: string;
  };
  switch (e.type ?? '') {
    case 'entity.parse.failed':
      return commonErrors.malformedJson();
    case 'entity.too.large':
    case 'parameters.too.many':
      return commonErrors.bodyTooLarge(
        e.limit !== undefined ? `${e.limit} bytes` : 'the size limit',
      );
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return commonErrors.unsupportedMediaType(req.headers['content-type'] ?? 'none');
    default:
      if (e.type && e.expose && typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
        return new AppError(
          e.status,
          'invalid_request',
          'invalid',
          e.message ?? 'Request body could not be read',
        );
      }
      return null;
  }
}

/**
 * Maps anything thrown to an AppError: backing-service outages become 503 with Retry-After
 * (outage.ts); unknown errors become a logged, opaque 500.
 */
export function toAppError(err: unknown, req: Request, logger?: Logger): AppError {
  if (err instanceof AppError) {
    return err;
  }
  const parserError = bodyParserError(err, req);
  if (parserError) {
    return parserError;
  }
  // Postgres or Redis away (restart, refused/dropped connections, pool exhausted): a 503 the
  // client may retry, whichever layer hit it (guard, interceptor, handler), not a bug to log.
  const outage = outageOf(err);
  if (outage) {
    logger?.warn(
      { dependency: outage.dependency, reason: outage.reason, request_id: requestIdOf(req) },
      'backing service unavailable',
    );
    return commonErrors.temporarilyUnavailable(OUTAGE_RETRY_AFTER_SECONDS);
  }
  // Tx.run already retried this transaction five times (deadlock or serialisation failure): the
  // contention is real, so the client is told to come back rather than shown an internal error.
  if (isRetryableConflict(err)) {
    logger?.warn({ request_id: requestIdOf(req) }, 'transaction conflict persisted after retries');
    return commonErrors.temporarilyUnavailable(1);
  }
  if (err instanceof HttpException) {
    const status = err.getStatus();
    if (status === 404) {
      return commonErrors.routeNotFound(req.method, req.path);
    }
    if (status === 429) {
      return commonErrors.rateLimited();
    }
    if (status < 500) {
      return new AppError(status, 'invalid_request', 'invalid', err.message);
    }
  }
  logger?.error(
    {
      err: err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : err,
      request_id: requestIdOf(req),
    },
    'unhandled error',
  );
  return commonErrors.internal();
}

/** A protocol whose routes answer errors in their own shape, also for errors before routing. */
export interface PathErrorShape {
  matches: (path: string) => boolean;
  filter: ExceptionFilter;
}

@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  /**
   * `shapes`: errors no route filter saw (the body parser's invalid JSON, an unknown route) on a
   * protocol's paths go to that protocol's filter (UCP: docs/ucp.md "Errors").
   */
  constructor(private readonly shapes: readonly PathErrorShape[] = []) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request>();
    const res = ctx.getResponse<Response>();
    if (res.headersSent) {
      return;
    }
    const shape = this.shapes.find((s) => s.matches(req.path));
    if (shape) {
      shape.filter.catch(exception, host);
      return;
    }
    if (exception instanceof ReplayedResponse) {
      if (exception.raw !== null) {
        // Byte for byte what the first response sent, with the same Content-Type.
        res.status(exception.status).setHeader('Content-Type', JSON_CONTENT_TYPE);
        res.send(exception.raw);
      } else {
        res.status(exception.status).json(exception.body);
      }
      return;
    }
    const err = toAppError(exception, req, this.logger);
    if (err.extra.retryAfterSeconds !== undefined) {
      res.setHeader('Retry-After', String(err.extra.retryAfterSeconds));
    }
    if (err.status === 503) {
      // Routes may have set a caching header before failing (e.g. JWKS): never cache an outage.
      res.setHeader('Cache-Control', 'no-store');
    }
    res.status(err.status).json(renderError(err, flavorOf(req.path), requestIdOf(req), req.path));
  }
}
