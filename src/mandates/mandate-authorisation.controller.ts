import { Body, Controller, Get, Param, Post, Query, Redirect, Render, Res } from '@nestjs/common';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import type { Response } from 'express';

import { Translator } from '../common/i18n/catalogue';
import { PageLanguage } from '../common/i18n/page-language.decorator';
import { AppController, CurrentPerson, SignedIn } from '../web/current-person.decorator';
import { CsrfForm } from '../web/dto/app-forms.dto';
import type { SignedInPerson } from '../web/signed-in-person';
import { MandatePagesService } from './mandate-pages.service';

/**
 * The authorisation form: on a recurring mandate, the maximum per debit the person sets (rupees),
 * and `confirm=yes` from its confirmation step.
 */
export class AuthoriseMandateForm extends CsrfForm {
  @IsOptional() @IsString() @MaxLength(32) max_per_debit?: string;
  @IsOptional() @IsString() @MaxLength(10) confirm?: string;
}

/**
 * {appUrl}/mandates/:id/authorize: a person of the mandate's workspace authorises or declines it. A
 * recurring (AutoPay) mandate is authorised only from its confirmation step (…/authorize/confirm,
 * whose form posts `confirm=yes`), as approvals above the threshold are.
 */
@AppController()
@SignedIn()
@Controller('app/mandates')
export class MandateAuthorisationController {
  constructor(private readonly pages: MandatePagesService) {}

  @Get(':id/authorize')
  @Render('app/mandate-authorize')
  page(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @PageLanguage() tr: Translator,
    @Query('error') error?: string,
  ) {
    return this.pages.authorisationPage(person, id, error, tr);
  }

  @Get(':id/authorize/confirm')
  async confirm(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Query('max_per_debit') maxPerDebit: unknown,
    @PageLanguage() tr: Translator,
    @Res() res: Response,
  ): Promise<void> {
    const step = await this.pages.confirmPage(
      person,
      id,
      typeof maxPerDebit === 'string' ? maxPerDebit.slice(0, 32) : undefined,
      tr,
    );
    if ('redirect' in step) {
      res.redirect(303, step.redirect);
    } else {
      res.render('app/mandate-authorize-confirm', step.locals);
    }
  }

  @Post(':id/authorize')
  @Redirect(undefined, 303)
  async authorise(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Body() form: AuthoriseMandateForm,
  ) {
    return {
      url: await this.pages.authorise(person, id, form.max_per_debit, form.confirm === 'yes'),
    };
  }

  @Post(':id/decline')
  @Redirect(undefined, 303)
  async decline(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Body() _form: CsrfForm,
  ) {
    return { url: await this.pages.decline(person, id) };
  }
}
