import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';

import { CredentialRateLimitGuard } from './credential-rate-limit.guard';
import { LoginRateLimited, PublicRateLimitGuard } from './public-rate-limit.guard';
import { RateLimiter } from './rate-limiter.service';

export { CredentialRateLimitGuard } from './credential-rate-limit.guard';
export { RateLimiter } from './rate-limiter.service';

/**
 * Rate limits, counted in Redis and shared by every instance (docs/security.md "Rate limits"):
 * per credential on authenticated routes, per client address on public ones, and per address
 * and email on sign-in/sign-up. Limited responses carry RateLimit-Policy, RateLimit-Limit,
 * RateLimit-Remaining and RateLimit-Reset; a 429 too_many_requests also Retry-After.
 */
export type RateLimitName = 'login';

/** An extra named limit on a public route (the public per-address limit applies anyway). */
export function RateLimited(name: RateLimitName) {
  switch (name) {
    case 'login':
      return LoginRateLimited();
  }
}

@Global()
@Module({
  providers: [
    RateLimiter,
    CredentialRateLimitGuard,
    { provide: APP_GUARD, useClass: PublicRateLimitGuard },
  ],
  exports: [RateLimiter, CredentialRateLimitGuard],
})
export class RateLimitModule {}
