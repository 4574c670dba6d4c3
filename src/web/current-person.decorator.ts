import {
  applyDecorators,
  createParamDecorator,
  ExecutionContext,
  UseFilters,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request } from 'express';

import { CredentialRateLimitGuard } from '../common/rate-limit/credential-rate-limit.guard';
import { CsrfGuard } from './csrf.guard';
import { NoStoreInterceptor } from './no-store.interceptor';
import { PersonGuard } from './person.guard';
import { personOf, SignedInPerson } from './signed-in-person';
import { WebExceptionFilter } from './web-exception.filter';

/** The signed-in person (set by PersonGuard): {personId, workspaceId, workspaceName, email, name, sessionId, csrfToken}. */
export const CurrentPerson = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): SignedInPerson => {
    const person = personOf(ctx.switchToHttp().getRequest<Request>());
    if (!person) {
      throw new Error('CurrentPerson used on a route without PersonGuard');
    }
    return person;
  },
);

/** Any controller under /app: HTML error pages instead of JSON, and no OpenAPI entry. */
export function AppController() {
  return applyDecorators(UseFilters(WebExceptionFilter), ApiExcludeController());
}

/**
 * Signed-in page or form (class or method): session required (GET → redirect to sign-in, POST →
 * 401), counted against the session's rate limit (429), `_csrf` required on every unsafe method
 * (403), Cache-Control: no-store, HTML errors.
 * Import WebModule in the module that declares the controller.
 */
export function SignedIn() {
  return applyDecorators(
    UseFilters(WebExceptionFilter),
    UseGuards(PersonGuard, CredentialRateLimitGuard, CsrfGuard),
    UseInterceptors(NoStoreInterceptor),
  );
}
