import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';

import { CSRF_FIELD, csrfMatches } from './csrf';
import { SessionCookies } from './session-cookies';
import { personOf } from './signed-in-person';
import { webErrors } from './web.errors';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The submitted token: the `_csrf` form field, or X-CSRF-Token for script-driven posts. */
function sentToken(req: Request): unknown {
  const body = req.body as Record<string, unknown> | undefined;
  return body?.[CSRF_FIELD] ?? req.header('X-CSRF-Token');
}

/**
 * Synchronizer-token check for signed-in forms. Runs after PersonGuard (which derives the
 * expected token from the session cookie); any unsafe method without the right `_csrf` is 403
 * before the handler, pipes or any write run.
 */
@Injectable()
export class CsrfGuard implements CanActivate {
  canActivate(ctx: ExecutionContext): boolean {
    const req = ctx.switchToHttp().getRequest<Request>();
    if (SAFE.has(req.method)) {
      return true;
    }
    const person = personOf(req);
    if (!person) {
      throw new Error('CsrfGuard must run after PersonGuard');
    }
    if (!csrfMatches(sentToken(req), person.csrfToken)) {
      throw webErrors.csrfFailed();
    }
    return true;
  }
}

/**
 * Double-submit check for the sign-in and sign-up posts: the hidden `_csrf` field must equal the
 * svc_csrf cookie that the form page set. A cross-site form cannot read or set that cookie.
 */
@Injectable()
export class PreSessionCsrfGuard implements CanActivate {
  constructor(private readonly cookies: SessionCookies) {}

  canActivate(ctx: ExecutionContext): boolean {
    const req = ctx.switchToHttp().getRequest<Request>();
    if (!csrfMatches(sentToken(req), this.cookies.preSessionCsrf(req))) {
      throw webErrors.csrfFailed();
    }
    return true;
  }
}
