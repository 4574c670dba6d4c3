import { Body, Controller, Get, Param, Post, Redirect, Render } from '@nestjs/common';

import { AppController, CurrentPerson, SignedIn } from '../web/current-person.decorator';
import { CsrfForm } from '../web/dto/app-forms.dto';
import type { SignedInPerson } from '../web/signed-in-person';
import { MandatePagesService } from './mandate-pages.service';

/** {appUrl}/mandates/:id/authorize: a person of the mandate's workspace authorises or declines it. */
@AppController()
@SignedIn()
@Controller('app/mandates')
export class MandateAuthorisationController {
  constructor(private readonly pages: MandatePagesService) {}

  @Get(':id/authorize')
  @Render('app/mandate-authorize')
  page(@CurrentPerson() person: SignedInPerson, @Param('id') id: string) {
    return this.pages.authorisationPage(person, id);
  }

  @Post(':id/authorize')
  @Redirect(undefined, 303)
  async authorise(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Body() _form: CsrfForm,
  ) {
    return { url: await this.pages.authorise(person, id) };
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
