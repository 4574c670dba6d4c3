import { Body, Controller, Get, Param, Post, Query, Redirect, Render } from '@nestjs/common';
import { IsOptional, IsString, MaxLength } from 'class-validator';

import { AppController, CurrentPerson, SignedIn } from '../web/current-person.decorator';
import { CsrfForm } from '../web/dto/app-forms.dto';
import type { SignedInPerson } from '../web/signed-in-person';
import { MandatePagesService } from './mandate-pages.service';

/** The authorisation form: on a recurring mandate, the maximum per debit the person sets (rupees). */
export class AuthoriseMandateForm extends CsrfForm {
  @IsOptional() @IsString() @MaxLength(32) max_per_debit?: string;
}

/** {appUrl}/mandates/:id/authorize: a person of the mandate's workspace authorises or declines it. */
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
    @Query('error') error?: string,
  ) {
    return this.pages.authorisationPage(person, id, error);
  }

  @Post(':id/authorize')
  @Redirect(undefined, 303)
  async authorise(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Body() form: AuthoriseMandateForm,
  ) {
    return { url: await this.pages.authorise(person, id, form.max_per_debit) };
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
