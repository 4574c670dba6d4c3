import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import type { Observable } from 'rxjs';

/**
 * The hosted payment pages' headers, set before the handler runs so error pages and redirects get
 * them too. The URL holds the capability (the quote id): no caches, no Referer to anyone, no
 * indexing. No third-party, inline script or inline style: the CSP allows only our own
 * /app/assets files. No framing (clickjacking a pay button).
 */
export const PAY_PAGE_HEADERS: Record<string, string> = {
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Robots-Tag': 'noindex, nofollow',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy':
    "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; connect-src 'self'; " +
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
};

@Injectable()
export class PayPageHeadersInterceptor implements NestInterceptor {
  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const res = ctx.switchToHttp().getResponse<Response>();
    for (const [name, value] of Object.entries(PAY_PAGE_HEADERS)) {
      res.setHeader(name, value);
    }
    return next.handle();
  }
}
