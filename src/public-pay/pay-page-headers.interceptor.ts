import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import type { Observable } from 'rxjs';

import { APP_CONFIG, AppConfig } from '../config/app.config';

/**
 * The hosted payment pages' headers, set before the handler runs so error pages and redirects get
 * them too. The URL holds the capability (the quote id): no caches, no Referer to anyone, no
 * indexing. No inline script or inline style: the CSP allows our own /app/assets files and, on
 * the gateway rail, the gateway's origin alone (GATEWAY_CHECKOUT_URL, default GATEWAY_API_URL)
 * for its checkout script, its frame and its calls. No framing of our pages (clickjacking a pay
 * button).
 */
export function payPageHeaders(gatewayOrigin: string | null): Record<string, string> {
  const gw = gatewayOrigin ? ` ${gatewayOrigin}` : '';
  return {
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'X-Robots-Tag': 'noindex, nofollow',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Content-Security-Policy':
      `default-src 'none'; style-src 'self'; script-src 'self'${gw}; img-src 'self'; connect-src 'self'${gw}; ` +
      (gatewayOrigin ? `frame-src${gw}; ` : '') +
      "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  };
}

/** The sandbox rail's headers (no third party at all). */
export const PAY_PAGE_HEADERS = payPageHeaders(null);

@Injectable()
export class PayPageHeadersInterceptor implements NestInterceptor {
  private readonly headers: Record<string, string>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.headers = payPageHeaders(
      config.gateway ? new URL(config.gateway.checkoutUrl).origin : null,
    );
  }

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const res = ctx.switchToHttp().getResponse<Response>();
    for (const [name, value] of Object.entries(this.headers)) {
      res.setHeader(name, value);
    }
    return next.handle();
  }
}
