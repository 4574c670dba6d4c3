import type { NextFunction, Request, Response } from 'express';
import { commonErrors } from '../errors/app-error';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

function hasBody(req: Request): boolean {
  const len = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (len !== undefined && len !== '0');
}

/**
 * JSON APIs take JSON only (BRIEF §2.1: anything else is 415). A POST with no body and no
 * Content-Type is allowed (ACP cancel). Form posts of the person-facing app are not under
 * these prefixes.
 */
export function requireJsonBody(prefixes: string[]) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    if (!BODY_METHODS.has(req.method) || !prefixes.some((p) => req.path.startsWith(p))) {
      return next();
    }
    if (!hasBody(req)) {
      return next();
    }
    const type = req.headers['content-type'];
    if (!type || !/^application\/json\s*(;|$)/i.test(type)) {
      return next(commonErrors.unsupportedMediaType(type ?? 'none'));
    }
    next();
  };
}
