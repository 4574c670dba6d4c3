import { Body, Controller, Get, Param, Post, Query, Redirect, Render } from '@nestjs/common';

import { Translator } from '../common/i18n/catalogue';
import { PageLanguage } from '../common/i18n/page-language.decorator';
import { AppController, CurrentPerson, SignedIn } from '../web/current-person.decorator';
import { DecisionForm } from '../web/dto/app-forms.dto';
import type { SignedInPerson } from '../web/signed-in-person';
import { MandateAmendmentPages } from './mandate-amendment-pages.service';

/**
 * {appUrl}/mandates/:id/amendments/:amendment: a person of the mandate's workspace sees the old and
 * new terms side by side and authorises or declines, each after a confirmation step (a POST
 * without `confirm=yes` only shows the confirmation).
 */
@AppController()
@SignedIn()
@Controller('app/mandates/:id/amendments')
export class MandateAmendmentPagesController {
  constructor(private readonly pages: MandateAmendmentPages) {}

  @Get(':amendment')
  @Render('app/mandate-amendment')
  page(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Param('amendment') amendment: string,
    @PageLanguage() tr: Translator,
    @Query('confirm') confirm?: string,
  ) {
    return this.pages.page(person, id, amendment, confirm, tr);
  }

  @Post(':amendment/authorise')
  @Redirect(undefined, 303)
  async authorise(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Param('amendment') amendment: string,
    @Body() form: DecisionForm,
  ) {
    return { url: await this.pages.answer(person, id, amendment, 'authorise', form.confirm) };
  }

  @Post(':amendment/decline')
  @Redirect(undefined, 303)
  async decline(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Param('amendment') amendment: string,
    @Body() form: DecisionForm,
  ) {
    return { url: await this.pages.answer(person, id, amendment, 'decline', form.confirm) };
  }
}
