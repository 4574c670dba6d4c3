import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';

import { personOf } from '../../web/signed-in-person';
import { principalOf } from '../auth/auth.decorators';
import { rateLimitSubject } from './rate-limit.policies';
import { RateLimiter } from './rate-limiter.service';

/**
 * Per-credential limit on every authenticated route. Listed right after the route's auth guard
 * (Auth, AcpRoute, SignedIn, /mcp) so it sees the resolved principal or person and counts by the
 * credential's id: API key, agent, protocol key or person session. A route carrying this guard
 * is left alone by PublicRateLimitGuard.
 */
@Injectable()
export class CredentialRateLimitGuard implements CanActivate {
  constructor(private readonly limiter: RateLimiter) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<Request>();
    const principal = principalOf(req);
    const person = personOf(req);
    const subject = principal
      ? rateLimitSubject.principal(principal)
      : person
        ? rateLimitSubject.personSession(person.sessionId)
        : null;
    if (!subject) {
      throw new Error('CredentialRateLimitGuard must run after an auth guard');
    }
    await this.limiter.enforce(ctx.switchToHttp().getResponse<Response>(), [
      { policy: 'credential', subject },
    ]);
    return true;
  }
}
