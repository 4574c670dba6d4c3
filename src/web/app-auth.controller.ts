import { Body, Controller, Get, Post, Query, Redirect, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';

import { Translator } from '../common/i18n/catalogue';
import { PageLanguage } from '../common/i18n/page-language.decorator';
import { RateLimited } from '../common/rate-limit/rate-limit';
import { AppLayout } from './app-layout.service';
import { AppSignupService } from './app-signup.service';
import { safeNext } from './csrf';
import { PreSessionCsrfGuard } from './csrf.guard';
import { AppController, CurrentPerson, SignedIn } from './current-person.decorator';
import { CsrfForm, LoginForm, SignupForm } from './dto/app-forms.dto';
import { errorWords } from './error-words';
import { attempt } from './form-outcome';
import { PersonSessionService } from './person-session.service';
import { SessionCookies } from './session-cookies';
import type { SignedInPerson } from './signed-in-person';

const EMPTY_SIGNUP = { workspace_name: '', name: '', email: '' };

/** Sign-up, sign-in and sign-out pages of the app (one service call per handler). */
@AppController()
@Controller('app')
export class AppAuthController {
  constructor(
    private readonly signup: AppSignupService,
    private readonly sessions: PersonSessionService,
    private readonly cookies: SessionCookies,
    private readonly layout: AppLayout,
  ) {}

  @Get('signup')
  signupPage(@Req() req: Request, @Res() res: Response, @PageLanguage() tr: Translator): void {
    const csrfToken = this.cookies.ensurePreSessionCsrf(req, res);
    this.render(res, 200, 'app/signup', {
      title: tr.t('app.signup.title'),
      csrfToken,
      values: EMPTY_SIGNUP,
      error: null,
    });
  }

  /** On success the first API key is shown once, on this response only. */
  @Post('signup')
  @RateLimited('login')
  @UseGuards(PreSessionCsrfGuard)
  async signUp(
    @Body() form: SignupForm,
    @Req() req: Request,
    @Res() res: Response,
    @PageLanguage() tr: Translator,
  ): Promise<void> {
    const outcome = await attempt(
      this.signup.signUp({
        workspaceName: form.workspace_name,
        name: form.name,
        email: form.email,
        password: form.password,
        previousToken: this.cookies.sessionToken(req),
      }),
    );
    if (!outcome.ok) {
      const values = { workspace_name: form.workspace_name, name: form.name, email: form.email };
      return this.render(res, outcome.status, 'app/signup', {
        title: tr.t('app.signup.title'),
        csrfToken: form._csrf,
        values,
        error: errorWords(tr, outcome).message,
      });
    }
    const { session, apiKey } = outcome.value;
    this.cookies.setSession(res, session);
    this.render(
      res,
      200,
      'app/welcome',
      this.layout.page(session.person, tr.t('app.welcome.title'), { apiKey }),
    );
  }

  @Get('login')
  async loginPage(
    @Query('next') next: string | undefined,
    @Req() req: Request,
    @Res() res: Response,
    @PageLanguage() tr: Translator,
  ): Promise<void> {
    if (await this.sessions.resolve(this.cookies.sessionToken(req))) {
      return res.redirect(303, safeNext(next));
    }
    const csrfToken = this.cookies.ensurePreSessionCsrf(req, res);
    this.render(res, 200, 'app/login', {
      title: tr.t('app.login.title'),
      csrfToken,
      email: '',
      next: safeNext(next),
      error: null,
    });
  }

  @Post('login')
  @RateLimited('login')
  @UseGuards(PreSessionCsrfGuard)
  async login(
    @Body() form: LoginForm,
    @Req() req: Request,
    @Res() res: Response,
    @PageLanguage() tr: Translator,
  ): Promise<void> {
    const outcome = await attempt(
      this.sessions.signIn({
        email: form.email,
        password: form.password,
        previousToken: this.cookies.sessionToken(req),
      }),
    );
    if (!outcome.ok) {
      const locals = {
        title: tr.t('app.login.title'),
        csrfToken: form._csrf,
        email: form.email,
        next: safeNext(form.next),
        error: errorWords(tr, outcome).message,
      };
      return this.render(res, outcome.status, 'app/login', locals);
    }
    this.cookies.setSession(res, outcome.value);
    res.redirect(303, safeNext(form.next));
  }

  @Post('logout')
  @SignedIn()
  @Redirect('/app/login', 303)
  async logout(
    @CurrentPerson() _person: SignedInPerson,
    @Body() _form: CsrfForm,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    await this.sessions.signOut(this.cookies.sessionToken(req));
    this.cookies.clearSession(res);
  }

  private render(res: Response, status: number, view: string, locals: object): void {
    res.status(status).setHeader('Cache-Control', 'no-store');
    res.render(view, { modeBanner: this.layout.modeBanner(), ...locals });
  }
}
