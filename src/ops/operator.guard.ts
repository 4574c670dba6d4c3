import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';

import { AppError } from '../common/errors/app-error';
import { rateLimitSubject } from '../common/rate-limit/rate-limit.policies';
import { RateLimiter } from '../common/rate-limit/rate-limiter.service';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { PersonSessionService } from '../web/person-session.service';
import { SessionCookies } from '../web/session-cookies';
import { setPerson } from '../web/signed-in-person';
import { OperatorAccess } from './operator-access';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The same answer as any unknown page under /app (AppNotFoundController): whoever is not a
 * signed-in operator cannot tell the operator tools from a mistyped address.
 */
export function hiddenPage(): AppError {
  return new AppError(
    404,
    'invalid_request',
    'not_found',
    'There is no page at this address. Check the link, or start again from the app.',
  );
}

/**
 * Operator tools (/app/ops/…): only a person signed in to the app (svc_session cookie) who is an
 * operator (OperatorAccess). Everyone else gets the app's 404 page, never a 401/403 or a sign-in
 * redirect: not signed in, signed in without the role, or calling with an API key, agent
 * credential or protocol key (a request with an Authorization header is refused before the
 * session is even looked at). Operators sign in at /app/login first. A refusal counts against the
 * public per-address rate limit, as a request for an unknown page does, so it carries the same
 * headers too (an operator's requests count against their session's limit instead).
 *
 * Unsafe methods (the dashboard's actions) must also come from our own pages: fetch metadata
 * `Sec-Fetch-Site: same-origin`, or, from browsers that send none, no Origin or our own (as the
 * hosted pay page's forms, src/public-pay/pay-form.guard.ts); otherwise 403.
 */
@Injectable()
export class OperatorGuard implements CanActivate {
  constructor(
    private readonly sessions: PersonSessionService,
    private readonly cookies: SessionCookies,
    private readonly access: OperatorAccess,
    private readonly limiter: RateLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<Request>();
    const person =
      req.headers.authorization === undefined
        ? await this.sessions.resolve(this.cookies.sessionToken(req))
        : null;
    if (!person || !(await this.access.isOperator(person.personId))) {
      await this.limiter.enforce(ctx.switchToHttp().getResponse<Response>(), [
        { policy: 'public', subject: rateLimitSubject.address(req.ip) },
      ]);
      throw hiddenPage();
    }
    if (!SAFE.has(req.method) && !this.fromOurPages(req)) {
      throw new AppError(
        403,
        'invalid_request',
        'cross_site_request',
        'Operator actions can only be sent from the dashboard itself.',
      );
    }
    setPerson(req, person);
    return true;
  }

  private fromOurPages(req: Request): boolean {
    const site = req.headers['sec-fetch-site'];
    if (site !== undefined) {
      return site === 'same-origin';
    }
    const origin = req.headers.origin;
    return origin === undefined || origin === new URL(this.config.appUrl).origin;
  }
}
