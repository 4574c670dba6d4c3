import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';

import { AppError } from '../common/errors/app-error';
import { APP_CONFIG, AppConfig } from '../config/app.config';

/**
 * Cross-site form posts to the hosted payment page are refused (403) by fetch metadata, with the
 * Origin header as the fallback for browsers that send no Sec-Fetch-Site.
 *
 * Why not a CSRF token: the page has no session and no cookie, so a forged cross-site POST
 * carries no authority the forger lacks: the quote id in the URL is the whole capability, and
 * whoever holds it can use the public API directly. A per-checkout form token would be handed to
 * anyone who GETs the page with that id, so it would prove nothing more. What a cross-site post
 * could still do is make a person's browser pay from a page they never saw (an auto-submitting
 * form, a framed page they are tricked into clicking). So: same-origin posts only (this guard),
 * and the pages refuse to be framed (CSP frame-ancestors 'none', X-Frame-Options: DENY).
 *
 * - Sec-Fetch-Site present (every current browser): only `same-origin` passes.
 * - Absent: Origin must be absent, `null` (our pages send Referrer-Policy: no-referrer, under
 *   which a browser sends `Origin: null` on a form post) or the app's own origin.
 * Non-browser clients (curl) send neither and pass: they could call the public API anyway.
 */
@Injectable()
export class PayFormGuard implements CanActivate {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  canActivate(ctx: ExecutionContext): boolean {
    const req = ctx.switchToHttp().getRequest<Request>();
    const site = req.headers['sec-fetch-site'];
    const origin = req.headers.origin;
    const ok =
      site !== undefined
        ? site === 'same-origin'
        : origin === undefined ||
          origin === 'null' ||
          origin === new URL(this.config.appUrl).origin;
    if (!ok) {
      throw new AppError(
        403,
        'invalid_request',
        'cross_site_form',
        'This form can only be sent from the payment page itself.',
      );
    }
    return true;
  }
}
