import type { NextFunction, Request, Response } from 'express';

import { base64LengthOf, DOCUMENT_MAX_BYTES } from '../document-size';
import { commonErrors } from '../errors/app-error';
import { fullPathOf } from './content-type';

/**
 * Routes whose JSON bodies may exceed BODY_LIMIT (docs/documents.md "Documents and outbound fetches").
 * Every other route keeps BODY_LIMIT.
 *
 * The document upload carries a document of up to DOCUMENT_MAX_BYTES (5,000,000 bytes) as
 * base64, 4 · ⌈5,000,000 / 3⌉ = 6,666,668 characters, inside a small JSON object (kind, content
 * type, file name; 16,384 bytes leave room for the names and for \u-escaped text), so its limit
 * is 6,683,052 bytes.
 */
export const DOCUMENT_ENVELOPE_BYTES = 16_384;
export const DOCUMENT_UPLOAD_BODY_LIMIT_BYTES =
  base64LengthOf(DOCUMENT_MAX_BYTES) + DOCUMENT_ENVELOPE_BYTES;

export interface RouteBodyLimit {
  method: string;
  /** Matched against the whole path, case-insensitively like Express's router. */
  path: RegExp;
  limitBytes: number;
}

export const ROUTE_BODY_LIMITS: readonly RouteBodyLimit[] = [
  {
    method: 'POST',
    path: /^\/v1\/pay\/forex\/orders\/[^/]+\/documents\/?$/i,
    limitBytes: DOCUMENT_UPLOAD_BODY_LIMIT_BYTES,
  },
];

/** The special limit of this request's route, or null (BODY_LIMIT applies). */
export function routeBodyLimitOf(req: Request): RouteBodyLimit | null {
  const path = fullPathOf(req);
  return ROUTE_BODY_LIMITS.find((r) => r.method === req.method && r.path.test(path)) ?? null;
}

/**
 * On routes with their own limit, a declared Content-Length above it is refused 413 at once,
 * before any byte of the body is read (the JSON parser would first read and discard the whole
 * body). The connection is closed after the answer, so the client cannot make us drain it.
 * Bodies without a Content-Length (chunked) are cut by the parser at the same limit.
 */
export function refuseOversizedContentLength(
  req: Request,
  res: Response,
  next: NextFunction,
): void {
  const route = routeBodyLimitOf(req);
  const declared = req.headers['content-length'];
  if (route && declared !== undefined && /^\d+$/.test(declared)) {
    if (Number(declared) > route.limitBytes) {
      res.setHeader('Connection', 'close');
      return next(commonErrors.bodyTooLarge(`${route.limitBytes} bytes`));
    }
  }
  next();
}
