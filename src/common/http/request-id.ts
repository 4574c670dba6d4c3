import type { NextFunction, Request, Response } from 'express';

import { identityNumberIn } from '../identity/identity-numbers';
import { randomHex } from '../ids';

const HEADER = 'Request-Id';
const SAFE = /^[A-Za-z0-9._:-]{1,200}$/;

export function requestIdOf(req: Request): string {
  return (req as Request & { requestId?: string }).requestId ?? 'unknown';
}

/**
 * Echoes a client's Request-Id (docs/acp.md §1) or generates req_…, once per request. The access
 * logger runs first and calls this too, so the log line and the response carry the same id.
 */
export function assignRequestId(req: Request, res: Response): string {
  const holder = req as Request & { requestId?: string };
  if (holder.requestId) {
    return holder.requestId;
  }
  const given = req.header(HEADER);
  // An id that looks like an Aadhaar number or a PAN is not echoed or logged: a fresh one is used.
  const usable = given !== undefined && SAFE.test(given) && identityNumberIn(given) === null;
  const id = usable ? given : `req_${randomHex(12)}`;
  holder.requestId = id;
  res.setHeader(HEADER, id);
  return id;
}

export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  assignRequestId(req, res);
  next();
}

const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/**
 * Idempotency-Key echo (docs/acp.md §1–§2): every POST response carries the Idempotency-Key it was
 * sent with, including the 401/403/400 answers of the guards that run before the idempotency
 * interceptor. Only a well-formed key (1–255 characters) is echoed.
 */
export function idempotencyKeyEchoMiddleware(
  req: Request,
  res: Response,
  next: NextFunction,
): void {
  const key = req.header(IDEMPOTENCY_HEADER);
  if (req.method === 'POST' && key !== undefined && key.length >= 1 && key.length <= 255) {
    res.setHeader(IDEMPOTENCY_HEADER, key);
  }
  next();
}
