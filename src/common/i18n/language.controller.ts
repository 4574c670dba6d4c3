import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';

import { isLanguage, LANGUAGE_COOKIE, LANGUAGE_COOKIE_MAX_AGE_MS } from './language';

/** Only a path of this site: "/app/…", never "//host" or "/\host" (no open redirect). */
export function safeNext(next: unknown): string {
  return typeof next === 'string' &&
    /^\/(?![/\\])/.test(next) &&
    !/[\r\n]/.test(next) &&
    next.length <= 2048
    ? next
    : '/app';
}

/**
 * The language switch in every page header: remembers the choice in the `lang` cookie and goes
 * back to the page it was pressed on. A preference, not a change of anything we hold, so a plain
 * link (works on the pay page, whose CSP allows no script).
 */
@ApiExcludeController()
@Controller('app/language')
export class LanguageController {
  @Get()
  choose(@Query('to') to: unknown, @Query('next') next: unknown, @Res() res: Response): void {
    if (isLanguage(to)) {
      res.cookie(LANGUAGE_COOKIE, to, {
        path: '/',
        maxAge: LANGUAGE_COOKIE_MAX_AGE_MS,
        httpOnly: true,
        sameSite: 'lax',
      });
    }
    res.redirect(303, safeNext(next));
  }
}
