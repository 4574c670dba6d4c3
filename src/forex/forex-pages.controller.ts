import { Body, Controller, Get, Inject, OnModuleInit, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';

import type { Translator } from '../common/i18n/catalogue';
import { PageLanguage } from '../common/i18n/page-language.decorator';
import { AppLayout } from '../web/app-layout.service';
import { AppController, CurrentPerson, SignedIn } from '../web/current-person.decorator';
import { attempt } from '../web/form-outcome';
import type { SignedInPerson } from '../web/signed-in-person';
import { BookForm, DealerNoteForm, DeclareForm, RatesForm } from './dto/forex-forms.dto';
import { DealerDecision, ForexDeskService } from './forex-desk.service';
import { ForexDocumentsService } from './forex-documents.service';
import { ForexPagesService } from './forex-pages.service';
import { ForexPartnersService } from './forex-partners.service';

const EXTENSION: Record<string, string> = {
  'application/pdf': 'pdf',
  'image/jpeg': 'jpg',
  'image/png': 'png',
};

/**
 * The people's forex pages (docs/forex.md "Forex files"): the file's person confirms the Form A2 / LRS
 * declaration; the partner's dealers work the desk (queue, file, documents, checklist, quote,
 * book / return / reject, and the rates table). Signed-in session + CSRF token on every post
 * (SignedIn); no bearer credential of any kind reaches these routes. A file outside the person's
 * reach, or a desk for someone who is not a dealer, is a 404 page.
 */
@AppController()
@SignedIn()
@Controller('app/forex')
export class ForexPagesController implements OnModuleInit {
  constructor(
    private readonly pages: ForexPagesService,
    private readonly desk: ForexDeskService,
    private readonly documents: ForexDocumentsService,
    private readonly partners: ForexPartnersService,
    @Inject(AppLayout) private readonly layout: AppLayout,
  ) {}

  onModuleInit(): void {
    this.layout.registerNav({
      key: 'forex-declarations',
      label: 'app.nav.forex',
      href: '/app/forex/declarations',
      order: 30,
      workspaceKinds: ['standard'],
    });
    this.layout.registerNav({
      key: 'forex-desk',
      label: 'app.nav.forex_desk',
      href: '/app/forex/desk',
      order: 5,
      workspaceKinds: ['forex_partner'],
    });
  }

  @Get('declarations')
  async declarations(
    @CurrentPerson() person: SignedInPerson,
    @PageLanguage() tr: Translator,
    @Res() res: Response,
  ) {
    res.render('app/forex-declarations', await this.pages.declarations(tr, person));
  }

  @Get('declarations/:id')
  async declaration(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @PageLanguage() tr: Translator,
    @Res() res: Response,
  ) {
    res.render('app/forex-declaration', await this.pages.declaration(tr, person, id));
  }

  @Post('declarations/:id/declare')
  async declare(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Body() form: DeclareForm,
    @PageLanguage() tr: Translator,
    @Res() res: Response,
  ) {
    if (form.confirm !== 'yes') {
      res
        .status(400)
        .render('app/forex-declaration', await this.pages.declaration(tr, person, id, 'unticked'));
      return;
    }
    const outcome = await attempt(this.desk.declare(this.pages.actor(person), id));
    if (!outcome.ok) {
      res
        .status(outcome.status)
        .render('app/forex-declaration', await this.pages.declaration(tr, person, id, outcome));
      return;
    }
    res.redirect(303, `/app/forex/declarations/${encodeURIComponent(id)}`);
  }

  @Get('desk')
  async queue(
    @CurrentPerson() person: SignedInPerson,
    @PageLanguage() tr: Translator,
    @Res() res: Response,
  ) {
    res.render('app/forex-desk', await this.pages.queue(tr, person));
  }

  @Get('desk/files/:id')
  async deskFile(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @PageLanguage() tr: Translator,
    @Res() res: Response,
  ) {
    res.render('app/forex-desk-file', await this.pages.deskFile(tr, person, id));
  }

  @Get('desk/files/:id/documents/:document_id')
  async document(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Param('document_id') documentId: string,
    @Res() res: Response,
  ) {
    await this.desk.deskFile(this.pages.actor(person), id);
    const { doc, bytes } = await this.documents.content(id, documentId);
    res.setHeader('Content-Type', doc.contentType);
    // Downloaded, never rendered in the app's origin.
    res.setHeader(
      'Content-Disposition',
      `attachment; filename="${doc.id}-${doc.kind}.${EXTENSION[doc.contentType]}"`,
    );
    res.send(bytes);
  }

  @Post('desk/files/:id/book')
  book(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Body() form: BookForm,
    @PageLanguage() tr: Translator,
    @Res() res: Response,
  ) {
    return this.decide(tr, person, id, 'book', form.deal_reference, res);
  }

  @Post('desk/files/:id/return')
  returnFile(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Body() form: DealerNoteForm,
    @PageLanguage() tr: Translator,
    @Res() res: Response,
  ) {
    return this.decide(tr, person, id, 'return', form.note, res);
  }

  @Post('desk/files/:id/reject')
  reject(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Body() form: DealerNoteForm,
    @PageLanguage() tr: Translator,
    @Res() res: Response,
  ) {
    return this.decide(tr, person, id, 'reject', form.note, res);
  }

  @Get('desk/rates')
  async rates(
    @CurrentPerson() person: SignedInPerson,
    @PageLanguage() tr: Translator,
    @Res() res: Response,
  ) {
    res.render('app/forex-desk-rates', await this.pages.rates(tr, person));
  }

  @Post('desk/rates/:currency')
  async setRates(
    @CurrentPerson() person: SignedInPerson,
    @Param('currency') currency: string,
    @Body() form: RatesForm,
    @PageLanguage() tr: Translator,
    @Res() res: Response,
  ) {
    const outcome = await attempt(
      this.partners.setRates(person, currency, {
        notesBuy: form.notes_buy,
        notesSell: form.notes_sell,
        cardBuy: form.card_buy,
        cardSell: form.card_sell,
      }),
    );
    if (!outcome.ok) {
      res
        .status(outcome.status)
        .render(
          'app/forex-desk-rates',
          await this.pages.rates(tr, person, { currency, refusal: outcome }),
        );
      return;
    }
    res.redirect(303, '/app/forex/desk/rates');
  }

  private async decide(
    tr: Translator,
    person: SignedInPerson,
    id: string,
    decision: DealerDecision,
    text: string,
    res: Response,
  ): Promise<void> {
    const outcome = await attempt(this.desk.decide(this.pages.actor(person), id, decision, text));
    if (!outcome.ok) {
      res
        .status(outcome.status)
        .render('app/forex-desk-file', await this.pages.deskFile(tr, person, id, outcome));
      return;
    }
    res.redirect(303, `/app/forex/desk/files/${encodeURIComponent(id)}`);
  }
}
