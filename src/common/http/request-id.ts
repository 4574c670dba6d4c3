import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const HEADER = 'Request-Id';
const SAFE = /^[A-Za-z0-9._:-]{1,200}$/;

export function requestIdOf(req: Request): string {
  return (req as Request & { requestId?: string }).requestId ?? 'unknown';
}

/** Echoes a client's Request-Id (BRIEF §2.4) or generates req_…; set before anything can fail. */
export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  const given = req.header(HEADER);
  const id = given && SAFE.test(given) ? given : `req_${randomBytes(12).toString('hex')}`;
  (req as Request & { requestId?: string }).requestId = id;
  res.setHeader(HEADER, id);
  next();
}
