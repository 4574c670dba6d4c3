import { applyDecorators, Injectable, Module, UseGuards } from '@nestjs/common';
import { SkipThrottle, ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import type { Request } from 'express';
import { APP_CONFIG, AppConfig } from '../../config/app.config';

/**
 * Rate limits for the few routes anyone can hit without a credential: sign-in/sign-up (per
 * address and email, against password guessing) and public documents such as ACP discovery
 * (BRIEF §7). In-memory per instance; 429 answers carry Retry-After (all-exceptions.filter).
 */
export type RateLimitName = 'login' | 'public';
const NAMES: RateLimitName[] = ['login', 'public'];

@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  protected override getTracker(req: Record<string, unknown>): Promise<string> {
    const r = req as unknown as Request;
    const email = (r.body as { email?: unknown } | undefined)?.email;
    return Promise.resolve(typeof email === 'string' ? `${r.ip ?? ''}|${email.trim().toLowerCase()}` : (r.ip ?? ''));
  }
}

/** Applies one named limit to a route (and skips the others). */
export function RateLimited(name: RateLimitName) {
  const skip = Object.fromEntries(NAMES.filter((n) => n !== name).map((n) => [n, true]));
  return applyDecorators(SkipThrottle(skip), UseGuards(RateLimitGuard));
}

@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        throttlers: [
          { name: 'login', ttl: 60_000, limit: config.rateLimitLoginPerMinute },
          { name: 'public', ttl: 60_000, limit: config.rateLimitPublicPerMinute },
        ],
      }),
    }),
  ],
  providers: [RateLimitGuard],
  exports: [ThrottlerModule, RateLimitGuard],
})
export class RateLimitModule {}
