import { Inject, Injectable } from '@nestjs/common';
import type { CookieOptions, Request, Response } from 'express';

import { APP_CONFIG, AppConfig } from '../config/app.config';
import { APP_COOKIE_PATH, newBrowserToken, PRE_SESSION_CSRF_COOKIE, SESSION_COOKIE } from './csrf';
import type { IssuedSession } from './person-session.service';

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{32,128}$/;

/** Reads and writes the app's cookies: HttpOnly, SameSite=Lax, Path=/app, Secure when configured. */
@Injectable()
export class SessionCookies {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  sessionToken(req: Request): string | undefined {
    return this.read(req, SESSION_COOKIE);
  }

  setSession(res: Response, session: IssuedSession): void {
    res.cookie(SESSION_COOKIE, session.token, { ...this.base(), expires: session.expiresAt });
    res.clearCookie(PRE_SESSION_CSRF_COOKIE, this.base());
  }

  clearSession(res: Response): void {
    res.clearCookie(SESSION_COOKIE, this.base());
  }

  preSessionCsrf(req: Request): string | undefined {
    return this.read(req, PRE_SESSION_CSRF_COOKIE);
  }

  /**
   * Double-submit token for the sign-in and sign-up forms (no session exists yet): reuses the
   * browser's svc_csrf cookie or sets a new one, and returns the value to put in the form.
   */
  ensurePreSessionCsrf(req: Request, res: Response): string {
    const existing = this.preSessionCsrf(req);
    if (existing) {
      return existing;
    }
    const token = newBrowserToken();
    res.cookie(PRE_SESSION_CSRF_COOKIE, token, this.base());
    return token;
  }

  private read(req: Request, name: string): string | undefined {
    const value = (req.cookies as Record<string, unknown> | undefined)?.[name];
    return typeof value === 'string' && TOKEN_SHAPE.test(value) ? value : undefined;
  }

  private base(): CookieOptions {
    return {
      httpOnly: true,
      sameSite: 'lax',
      secure: this.config.sessionCookieSecure,
      path: APP_COOKIE_PATH,
    };
  }
}
