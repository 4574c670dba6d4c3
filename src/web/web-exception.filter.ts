import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';

import { toAppError } from '../common/errors/all-exceptions.filter';
import { WebRedirect } from './web-redirect';

const HEADINGS: Record<number, string> = {
  400: 'Something in the form is not right',
  401: 'Please sign in',
  403: 'Request refused',
  404: 'Not found',
  429: 'Too many attempts; wait a minute and try again',
  503: 'Temporarily unavailable',
};

/** What a person reads on a 503 page (the API's message speaks of a Retry-After header). */
const UNAVAILABLE_MESSAGE =
  'The service is temporarily unavailable. Please try again in a few seconds.';

/**
 * HTML counterpart of the global JSON filter, for controllers under /app: redirects thrown by
 * guards become 303s, everything else an error page (5xx show no internals, as in the API; a
 * Postgres/Redis outage is a 503 "temporarily unavailable" page with Retry-After).
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
    const heading = HEADINGS[err.status] ?? 'Something went wrong';
    res.status(err.status).render('app/error', {
      title: heading,
      heading,
      message: err.status === 503 ? UNAVAILABLE_MESSAGE : err.message,
      status: err.status,
      code: err.code,
      signIn: err.status === 401,
    });
  }
}
