import {
  Body,
  Controller,
  Get,
  Inject,
  OnModuleInit,
  Param,
  Post,
  Query,
  Redirect,
  Render,
  Res,
} from '@nestjs/common';
import type { Response } from 'express';

import { Translator } from '../common/i18n/catalogue';
import { PageLanguage } from '../common/i18n/page-language.decorator';
import { Idempotent } from '../common/idempotency/idempotent.decorator';
import { AppLayout } from '../web/app-layout.service';
import { ApprovalsPagesService, DecisionVerb } from '../web/approvals-pages.service';
import { AppController, CurrentPerson, SignedIn } from '../web/current-person.decorator';
import { DecisionForm } from '../web/dto/app-forms.dto';
import type { SignedInPerson } from '../web/signed-in-person';

/**
 * The approvals inbox: the only place a payment above the threshold or a refund is approved.
 * Signed-in person + CSRF token (SignedIn); no bearer credential of any kind reaches these routes.
 * Answers on amounts above the threshold need `confirm=yes` (the confirmation page's form).
 */
@AppController()
@SignedIn()
@Controller('app/approvals')
export class ApprovalsPageController implements OnModuleInit {
  constructor(
    private readonly pages: ApprovalsPagesService,
    @Inject(AppLayout) private readonly layout: AppLayout,
  ) {}

  onModuleInit(): void {
    this.layout.registerNav({
      key: 'approvals',
      label: 'app.nav.approvals',
      href: '/app/approvals',
      order: 10,
    });
  }

  @Get()
  @Render('app/approvals')
  inbox(@CurrentPerson() person: SignedInPerson, @PageLanguage() tr: Translator) {
    return this.pages.inbox(person, tr);
  }

  @Get(':id')
  @Render('app/approval')
  detail(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @PageLanguage() tr: Translator,
    @Query('notice') notice: unknown,
  ) {
    return this.pages.detail(person, id, tr, notice);
  }

  @Get(':id/confirm')
  async confirm(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Query('decision') decision: unknown,
    @PageLanguage() tr: Translator,
    @Res() res: Response,
  ): Promise<void> {
    const verb: DecisionVerb = decision === 'deny' ? 'deny' : 'approve';
    const page = await this.pages.confirmPage(person, id, verb, tr);
    if (page) {
      res.render('app/approval-confirm', page);
    } else {
      res.redirect(303, `/app/approvals/${encodeURIComponent(id)}`);
    }
  }

  // A decision resent (double click, back and resubmit) or contradicting one already recorded goes
  // to the outcome page (ApprovalsPagesService.decide), never to an error page.
  @Post(':id/approve')
  @Idempotent()
  @Redirect('/app/approvals', 303)
  async approve(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Body() form: DecisionForm,
  ) {
    return { url: await this.pages.decide(person, id, 'approve', form.confirm === 'yes') };
  }

  @Post(':id/deny')
  @Idempotent()
  @Redirect('/app/approvals', 303)
  async deny(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Body() form: DecisionForm,
  ) {
    return { url: await this.pages.decide(person, id, 'deny', form.confirm === 'yes') };
  }
}
