import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';

import { toAppError } from '../common/errors/all-exceptions.filter';
import { translator } from '../common/i18n/catalogue';
import { languageOfResponse, languageSwitch } from '../common/i18n/language';
import { errorWords } from './error-words';
import { WebRedirect } from './web-redirect';

/**
 * HTML counterpart of the global JSON filter, for controllers under /app: redirects thrown by
 * guards become 303s, everything else an error page (5xx show no internals, as in the API; a
 * Postgres/Redis outage is a 503 "temporarily unavailable" page with Retry-After). The words are
 * the page's language (docs/languages.md).
 */
@Catch()
export class WebExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('WebErrors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<Request>();
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) {
      return;
    }
    res.setHeader('Cache-Control', 'no-store');
    if (exception instanceof WebRedirect) {
      res.redirect(303, exception.location);
      return;
    }
    const err = toAppError(exception, req, this.logger);
    if (err.extra.retryAfterSeconds !== undefined) {
      res.setHeader('Retry-After', String(err.extra.retryAfterSeconds));
    }
    // In the page's language, by the error's code (src/web/error-words.ts); 5xx show no internals.
    const words = errorWords(translator(languageOfResponse(res)), err);
    res.status(err.status).render('app/error', {
      title: words.heading,
      heading: words.heading,
      message: words.message,
      status: err.status,
      code: err.code,
      signIn: err.status === 401,
      // Back to the app's home: the page says nothing of the address asked for (a 404 is a 404).
      languageSwitch: languageSwitch(languageOfResponse(res)),
    });
  }
}
