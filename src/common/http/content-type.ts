import type { NextFunction, Request, Response } from 'express';

import { commonErrors } from '../errors/app-error';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

function hasBody(req: Request): boolean {
  const len = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (len !== undefined && len !== '0');
}

/**
 * The full request path. Middleware mounted with forRoutes('*') sees req.path relative to its
 * mount point ('/' for every request), so prefix checks must read originalUrl.
 */
export function fullPathOf(req: Request): string {
  return (req.originalUrl ?? req.url).split('?')[0];
}

export function underPrefixes(req: Request, prefixes: string[]): boolean {
  const path = fullPathOf(req);
  return prefixes.some((p) => path === p || path.startsWith(`${p}/`));
}

/**
 * JSON APIs take JSON only (docs/acp.md §1: anything else is 415). A POST with no body and no
 * Content-Type is allowed (ACP cancel). Form posts of the person-facing app are not under
 * these prefixes.
 */
export function requireJsonBody(prefixes: string[]) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    if (!BODY_METHODS.has(req.method) || !underPrefixes(req, prefixes)) {
      return next();
    }
    if (!hasBody(req)) {
      return next();
    }
    const type = req.headers['content-type'];
    if (!type || !/^application\/(?:[\w.+-]+\+)?json\s*(;|$)/i.test(type)) {
      return next(commonErrors.unsupportedMediaType(type ?? 'none'));
    }
    next();
  };
}

/**
 * Every JSON body on these APIs is an object. The parser (strict) already refuses scalars; an
 * array would otherwise reach the ValidationPipe and come back as "Unknown field $[0]".
 */
export function requireJsonObject(prefixes: string[]) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const body: unknown = req.body;
    if (body === undefined || !underPrefixes(req, prefixes)) {
      return next();
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      return next(commonErrors.invalid('$', 'Request body must be a JSON object'));
    }
    next();
  };
}
