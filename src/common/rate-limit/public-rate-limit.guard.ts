import { CanActivate, ExecutionContext, Injectable, SetMetadata, Type } from '@nestjs/common';
import { GUARDS_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';

import { CredentialRateLimitGuard } from './credential-rate-limit.guard';
import { rateLimitSubject } from './rate-limit.policies';
import { RateLimitCheck, RateLimiter } from './rate-limiter.service';

const LOGIN_LIMITED = 'rate-limit:login';

/** Sign-in/sign-up: the `login` limit per client address and email, on top of the public one. */
export const LoginRateLimited = () => SetMetadata(LOGIN_LIMITED, true);

const NOT_LIMITED = 'rate-limit:none';

/**
 * Load-balancer and Kubernetes probes (/health/live, /health/ready): never refused for rate,
 * since a 429 would take a healthy instance out of service (docs/operations.md "Operating it").
 */
export const NotRateLimited = () => SetMetadata(NOT_LIMITED, true);

/**
 * A route that counts its anonymous traffic itself, after checking what authenticates it: the
 * gateway's webhook (GatewayWebhookGuard) never limits a correctly signed event and counts the
 * rest against `public` per address. Left alone here, like NotRateLimited.
 */
export const RateLimitedAfterSignature = () => SetMetadata(NOT_LIMITED, true);

/**
 * Global guard (runs before any route guard): every route without a credential is limited per
 * client address (req.ip; trust proxy is loopback, so X-Forwarded-For counts only from a local
 * proxy). Routes carrying CredentialRateLimitGuard are counted there instead, by credential.
 */
@Injectable()
export class PublicRateLimitGuard implements CanActivate {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    if (ctx.getType() !== 'http') {
      return true;
    }
    const targets = [ctx.getHandler(), ctx.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(NOT_LIMITED, targets)) {
      return true;
    }
    const guards = this.reflector.getAllAndMerge<Type<CanActivate>[]>(GUARDS_METADATA, targets);
    if (guards.includes(CredentialRateLimitGuard)) {
      return true;
    }
    const req = ctx.switchToHttp().getRequest<Request>();
    const checks: RateLimitCheck[] = [
      { policy: 'public', subject: rateLimitSubject.address(req.ip) },
    ];
    if (this.reflector.getAllAndOverride<boolean>(LOGIN_LIMITED, targets)) {
      const email = (req.body as { email?: unknown } | undefined)?.email;
      checks.push({
        policy: 'login',
        subject: rateLimitSubject.login(req.ip, typeof email === 'string' ? email : ''),
      });
    }
    await this.limiter.enforce(ctx.switchToHttp().getResponse<Response>(), checks);
    return true;
  }
}
