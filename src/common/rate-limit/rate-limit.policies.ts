import { createHash } from 'node:crypto';

import { normalizeIp } from '@nestjs/throttler';

import type { AppConfig } from '../../config/app.config';
import type { Principal } from '../auth/principal';

/**
 * What a request is counted against. Every bucket is a fixed window of `windowMs` holding at
 * most `limit` requests; once it overflows the caller is refused until the window has passed.
 *   credential: every authenticated route, per credential id (never the secret), all routes share it;
 *   public:     every route without a credential, per client address; the window is burst/rate
 *               seconds long and holds `burst` requests, so the sustained rate is `rate`/s and a
 *               client may send `burst` at once;
 *   login:      sign-in and sign-up, per client address and email, on top of `public`.
 */
export type RateLimitPolicyName = 'credential' | 'public' | 'login';

export interface RateLimitPolicy {
  name: RateLimitPolicyName;
  limit: number;
  windowMs: number;
}

export type RateLimitPolicies = Record<RateLimitPolicyName, RateLimitPolicy>;

export function rateLimitPolicies(config: AppConfig): RateLimitPolicies {
  const publicWindowMs = Math.max(
    1,
    Math.round((1000 * config.rateLimitPublicBurst) / config.rateLimitPublicPerSecond),
  );
  return {
    credential: { name: 'credential', limit: config.rateLimitCredentialPerSecond, windowMs: 1000 },
    public: { name: 'public', limit: config.rateLimitPublicBurst, windowMs: publicWindowMs },
    login: { name: 'login', limit: config.rateLimitLoginPerMinute, windowMs: 60_000 },
  };
}

/** `RateLimit-Policy` item (draft-ietf-httpapi-ratelimit-headers-06): `<limit>;w=<window seconds>`. */
export function policyHeaderItem(p: RateLimitPolicy): string {
  return `${p.limit};w=${Math.max(1, Math.ceil(p.windowMs / 1000))}`;
}

/**
 * Bucket subjects. Ids only: a Redis key never holds a secret, and the login subject is hashed so
 * it holds no email either. IPv6 addresses count per /64, the block one client usually holds.
 */
export const rateLimitSubject = {
  principal: (p: Principal): string => `${p.kind}:${p.id}`,
  personSession: (sessionId: string): string => `person_session:${sessionId}`,
  address: (ip: string | undefined): string => `ip:${normalizeIp(ip ?? 'unknown')}`,
  login: (ip: string | undefined, email: string): string =>
    `login:${createHash('sha256')
      .update(`${normalizeIp(ip ?? 'unknown')}|${email.trim().toLowerCase()}`)
      .digest('hex')}`,
};
