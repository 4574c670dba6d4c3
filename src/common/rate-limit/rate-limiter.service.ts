import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { Response } from 'express';
import Redis from 'ioredis';

import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { commonErrors } from '../errors/app-error';
import {
  policyHeaderItem,
  RateLimitPolicies,
  rateLimitPolicies,
  RateLimitPolicy,
  RateLimitPolicyName,
} from './rate-limit.policies';
import { defineHit, incrementBy } from './weighted-hit';

const CONNECT_WAIT_MS = 2000;
const WARN_EVERY_MS = 10_000;

export interface RateLimitCheck {
  policy: RateLimitPolicyName;
  subject: string;
  /**
   * How many requests this one counts as (default 1): a JSON-RPC batch to /mcp counts one per
   * message, so the MCP door and the REST door share one budget (docs/security.md "Rate limits").
   */
  cost?: number;
}

interface Outcome {
  policy: RateLimitPolicy;
  remaining: number;
  resetSeconds: number;
  blocked: boolean;
}

/**
 * Counts requests in Redis, so every instance on one Redis shares one budget. Each hit is one
 * atomic Lua script sent by its digest (weighted-hit.ts: INCRBY + PEXPIRE on a fixed window, and
 * a block key set for one window once the limit is passed). Keys are
 * `{<QUEUE_PREFIX>:rl:<subject>:<policy>}:hits|blocked`.
 *
 * Fails open: when Redis cannot answer within `rateLimitRedisTimeoutMs` (RATE_LIMIT_REDIS_TIMEOUT_MS,
 * 250 ms by default: down, unreachable, not yet connected) the request goes through without limit
 * headers and a warning is logged
 * (at most one per 10 s). Refusing every request because the limiter's store is away would turn
 * a Redis outage into a full API outage; the database and the idempotency layer still protect
 * the writes meanwhile.
 */
@Injectable()
export class RateLimiter implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('RateLimit');
  private readonly redis: Redis;
  private readonly prefix: string;
  readonly policies: RateLimitPolicies;
  private lastWarningAt = 0;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.policies = rateLimitPolicies(config);
    this.prefix = `${config.queuePrefix}:rl`;
    // No offline queue and a command timeout: while Redis is away a hit fails at once instead of
    // waiting in ioredis's buffer, and the request fails open.
    this.redis = new Redis(config.redisUrl, {
      // Named in Redis's CLIENT LIST, so an operator (and a test) can tell the limiter's connection apart.
      connectionName: `${config.queuePrefix}:rate-limit`,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: config.rateLimitRedisTimeoutMs,
      connectTimeout: CONNECT_WAIT_MS,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    });
    this.redis.on('error', (err: Error) => this.warn(`redis: ${err.message}`));
    defineHit(this.redis);
  }

  /** Waits briefly for the connection so the first requests after boot are counted; never blocks boot. */
  async onModuleInit(): Promise<void> {
    if (this.redis.status === 'ready') {
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.redis.once('ready', () => resolve())),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CONNECT_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
  }

  onModuleDestroy(): void {
    this.redis.disconnect();
  }

  /**
   * Counts one request (or its cost) against every check, sets the limit headers from the
   * tightest bucket and throws 429 too_many_requests (with Retry-After) when any bucket is
   * exhausted.
   */
  async enforce(res: Response, checks: RateLimitCheck[]): Promise<void> {
    const outcomes = (await Promise.all(checks.map((c) => this.hit(c)))).filter(
      (o): o is Outcome => o !== null,
    );
    if (outcomes.length === 0) {
      return;
    }
    const blocked = outcomes
      .filter((o) => o.blocked)
      .sort((a, b) => b.resetSeconds - a.resetSeconds);
    const binding =
      blocked[0] ??
      [...outcomes].sort((a, b) => a.remaining - b.remaining || b.resetSeconds - a.resetSeconds)[0];
    // IETF draft-ietf-httpapi-ratelimit-headers-06 fields, as express-rate-limit's "draft-6".
    res.setHeader('RateLimit-Policy', outcomes.map((o) => policyHeaderItem(o.policy)).join(', '));
    res.setHeader('RateLimit-Limit', String(binding.policy.limit));
    res.setHeader('RateLimit-Remaining', String(binding.remaining));
    res.setHeader('RateLimit-Reset', String(binding.resetSeconds));
    if (binding.blocked) {
      throw commonErrors.rateLimited(binding.resetSeconds);
    }
  }

  private async hit(check: RateLimitCheck): Promise<Outcome | null> {
    const policy = this.policies[check.policy];
    // A request costing n counts as n requests, in one atomic step (weighted-hit.ts); never more
    // than one window's budget, so it can always pass in a fresh window (a route weighing its
    // requests refuses, itself, those too big to run).
    const cost = Math.min(policy.limit, Math.max(1, Math.floor(check.cost ?? 1)));
    const key = `${this.prefix}:${check.subject}`;
    try {
      const r = await incrementBy(this.redis, {
        key,
        ttlMs: policy.windowMs,
        limit: policy.limit,
        throttlerName: policy.name,
        cost,
      });
      return {
        policy,
        blocked: r.isBlocked,
        remaining: r.isBlocked ? 0 : Math.max(0, policy.limit - r.totalHits),
        resetSeconds: Math.max(1, r.isBlocked ? r.timeToBlockExpire : r.timeToExpire),
      };
    } catch (err) {
      this.warn(
        `request not counted (${policy.name}), allowed: ${err instanceof Error ? err.message : String(err)}`,
      );
      return null;
    }
  }

  private warn(message: string): void {
    const now = Date.now();
    if (now - this.lastWarningAt >= WARN_EVERY_MS) {
      this.lastWarningAt = now;
      this.logger.warn(`rate limiting fails open: ${message}`);
    }
  }
}
