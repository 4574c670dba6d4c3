import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';

import { principalOf } from '../auth/auth.decorators';
import { personOf } from '../auth/signed-in-person';
import { rateLimitSubject } from './rate-limit.policies';
import { RateLimiter } from './rate-limiter.service';

const REQUEST_COST = 'rate-limit:cost';

/**
 * How many requests one request to this route counts as against the credential's budget, given
 * the budget (requests per window). /mcp: one per JSON-RPC message of a batch.
 */
export type RequestCost = (req: Request, budget: number) => number;

/** Weighs the route's requests (CredentialRateLimitGuard); without it each counts as one. */
export const RateLimitCost = (cost: RequestCost) => SetMetadata(REQUEST_COST, cost);

/**
 * Per-credential limit on every authenticated route. Listed right after the route's auth guard
 * (Auth, AcpRoute, SignedIn, /mcp) so it sees the resolved principal or person and counts by the
 * credential's id: API key, agent, protocol key or person session. A route carrying this guard
 * is left alone by PublicRateLimitGuard.
 */
@Injectable()
export class CredentialRateLimitGuard implements CanActivate {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly reflector: Reflector,
  ) {}

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
    const cost = this.reflector.get<RequestCost | undefined>(REQUEST_COST, ctx.getHandler());
    await this.limiter.enforce(ctx.switchToHttp().getResponse<Response>(), [
      {
        policy: 'credential',
        subject,
        cost: cost ? cost(req, this.limiter.policies.credential.limit) : 1,
      },
    ]);
    return true;
  }
}
