import {
  Body,
  Controller,
  Get,
  Header,
  HttpCode,
  OnModuleInit,
  Post,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import type { Request, Response } from 'express';

import type { Translator } from '../common/i18n/catalogue';
import { PageLanguage } from '../common/i18n/page-language.decorator';
import { AppLayout } from '../web/app-layout.service';
import { AppController, CurrentPerson, SignedIn } from '../web/current-person.decorator';
import { CsrfForm } from '../web/dto/app-forms.dto';
import { attempt } from '../web/form-outcome';
import { PersonSessionService } from '../web/person-session.service';
import { SessionCookies } from '../web/session-cookies';
import type { SignedInPerson } from '../web/signed-in-person';
import { PersonalDataService } from './personal-data.service';
import { correctionError, YourDataPages } from './your-data.pages';

export class CorrectionForm extends CsrfForm {
  @IsString() @MaxLength(200) name: string;
  @IsString() @MaxLength(200) email: string;
  @IsString() @MaxLength(40) phone: string;
}

export class ErasureForm extends CsrfForm {
  /**
   * The confirmation box: erasure cannot be undone. Anything but "yes" shows the confirmation
   * page again with the reason, in the page's language.
   */
  @IsOptional() @IsString() @MaxLength(10) understood?: string;
}

/** {appUrl}/your-data: see, download, correct and erase what we hold (docs/personal-data.md). */
@AppController()
@SignedIn()
@Controller('app/your-data')
export class YourDataController implements OnModuleInit {
  constructor(
    private readonly data: PersonalDataService,
    private readonly pages: YourDataPages,
    private readonly layout: AppLayout,
    private readonly sessions: PersonSessionService,
    private readonly cookies: SessionCookies,
  ) {}

  onModuleInit(): void {
    this.layout.registerNav({
      key: 'your-data',
      label: 'app.nav.your_data',
      href: '/app/your-data',
      order: 80,
    });
  }

  @Get()
  async page(
    @CurrentPerson() person: SignedInPerson,
    @Query('corrected') corrected: string | undefined,
    @PageLanguage() tr: Translator,
    @Res() res: Response,
  ): Promise<void> {
    res.render('app/your-data', await this.pages.page(person, tr, { saved: corrected === '1' }));
  }

  @Get('download')
  @Header('Content-Type', 'application/json; charset=utf-8')
  @Header('Content-Disposition', 'attachment; filename="your-data.json"')
  async download(@CurrentPerson() person: SignedInPerson): Promise<string> {
    return JSON.stringify(await this.data.export(person), null, 2);
  }

  @Post('profile')
  async correct(
    @CurrentPerson() person: SignedInPerson,
    @Body() form: CorrectionForm,
    @PageLanguage() tr: Translator,
    @Res() res: Response,
  ): Promise<void> {
    const outcome = await attempt(this.data.correct(person, form));
    if (outcome.ok) {
      return res.redirect(303, '/app/your-data?corrected=1#profile');
    }
    res.status(outcome.status).render(
      'app/your-data',
      await this.pages.page(person, tr, {
        error: correctionError(tr, outcome),
        values: { name: form.name, email: form.email, phone: form.phone },
      }),
    );
  }

  @Get('erase')
  eraseConfirm(
    @CurrentPerson() person: SignedInPerson,
    @PageLanguage() tr: Translator,
    @Res() res: Response,
  ): void {
    res.render('app/your-data-erase', this.pages.confirmPage(person, tr, null));
  }

  /** Erases, ends the session (cookie cleared) and shows what was kept and why. */
  @Post('erase')
  @HttpCode(200)
  async erase(
    @CurrentPerson() person: SignedInPerson,
    @Body() form: ErasureForm,
    @PageLanguage() tr: Translator,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    if (form.understood !== 'yes') {
      res
        .status(400)
        .render(
          'app/your-data-erase',
          this.pages.confirmPage(person, tr, tr.t('data.confirm.not_ticked')),
        );
      return;
    }
    const outcome = await this.data.erase(person);
    await this.sessions.signOut(this.cookies.sessionToken(req));
    this.cookies.clearSession(res);
    res.render('app/your-data-erased', this.pages.erasedPage(tr, outcome));
  }
}
