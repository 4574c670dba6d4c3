import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';

import { loginUrl } from './csrf';
import { PersonSessionService } from './person-session.service';
import { SessionCookies } from './session-cookies';
import { setPerson } from './signed-in-person';
import { webErrors } from './web.errors';
import { WebRedirect } from './web-redirect';

const READS = new Set(['GET', 'HEAD']);

/**
 * Requires a signed-in person (svc_session cookie with a live session). A page view without one
 * is redirected to /app/login?next=<this page>; a form post gets a 401 page, because replaying a
 * POST after sign-in would act without the person seeing the form again.
 */
@Injectable()
export class PersonGuard implements CanActivate {
  constructor(
    private readonly sessions: PersonSessionService,
    private readonly cookies: SessionCookies,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<Request>();
    const person = await this.sessions.resolve(this.cookies.sessionToken(req));
    if (!person) {
      if (READS.has(req.method)) {
        throw new WebRedirect(loginUrl(req.originalUrl));
      }
      throw webErrors.notSignedIn();
    }
    setPerson(req, person);
    return true;
  }
}
