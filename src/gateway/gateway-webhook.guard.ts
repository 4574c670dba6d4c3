import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';

import type { RawBodyRequest } from '../common/http/http-pipeline';
import { rateLimitSubject } from '../common/rate-limit/rate-limit.policies';
import { RateLimiter } from '../common/rate-limit/rate-limiter.service';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { verifyWebhookSignature } from '../rails/gateway/gateway-signatures';

/**
 * The rate limit of POST /v1/webhooks/gateway (docs/security.md "Rate limits"), in place of the public
 * per-address limit (the route is marked RateLimitedAfterSignature): the signature is checked
 * first, an HMAC over the raw bytes compared in constant time, and a correctly signed event is
 * never limited, however many the gateway sends from one address. Anything else (no signature, a
 * wrong one, no gateway configured) counts against `public` for the client's address, one Redis
 * round trip, and is refused 429 with Retry-After once over it; under it the handler refuses it
 * (401 invalid_signature). The handler checks the signature again: it never relies on this guard.
 */
@Injectable()
export class GatewayWebhookGuard implements CanActivate {
  constructor(
    private readonly limiter: RateLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<RawBodyRequest>();
    const secret = this.config.gateway?.webhookSecret.reveal();
    const signature = req.headers['x-gateway-signature'];
    if (
      secret !== undefined &&
      req.rawBody !== undefined &&
      verifyWebhookSignature(req.rawBody, typeof signature === 'string' ? signature : null, secret)
    ) {
      return true;
    }
    await this.limiter.enforce(ctx.switchToHttp().getResponse<Response>(), [
      { policy: 'public', subject: rateLimitSubject.address(req.ip) },
    ]);
    return true;
  }
}
