import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Response } from 'express';

import { translator } from './catalogue';
import { languageOfResponse } from './language';

/**
 * The Translator of the language this request's page is rendered in (set by languageMiddleware):
 * `page(@PageLanguage() tr: Translator)` hands it to the presenter, so the words a presenter
 * composes are in the same language as the template's.
 */
export const PageLanguage = createParamDecorator((_: unknown, ctx: ExecutionContext) =>
  translator(languageOfResponse(ctx.switchToHttp().getResponse<Response>())),
);
