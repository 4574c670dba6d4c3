import { Body, Controller, Get, HttpCode, Param, Post, Redirect, Render } from '@nestjs/common';
import { AppController, CurrentPerson, SignedIn } from '../web/current-person.decorator';
import { CsrfForm } from '../web/dto/app-forms.dto';
import type { SignedInPerson } from '../web/signed-in-person';
import { ConsentService } from './consent.service';
import { IssueProtocolKeyForm } from './dto/consent-forms.dto';

/** {appUrl}/consent: a signed-in person sees and revokes what agents may do. Every form carries _csrf. */
@AppController()
@SignedIn()
@Controller('app/consent')
export class ConsentController {
  constructor(private readonly consent: ConsentService) {}

  @Get()
  @Render('app/consent')
  page(@CurrentPerson() person: SignedInPerson) {
    return this.consent.page(person);
  }

  @Post('protocol-keys')
  @HttpCode(200)
  @Render('app/protocol-key-created')
  issueProtocolKey(@CurrentPerson() person: SignedInPerson, @Body() form: IssueProtocolKeyForm) {
    return this.consent.issueProtocolKey(person, {
      role: form.role,
      agentId: form.agent_id,
      name: form.name,
      publicKeyPem: form.public_key,
    });
  }

  @Post('protocol-keys/:id/revoke')
  @Redirect('/app/consent', 303)
  async revokeProtocolKey(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Body() _form: CsrfForm,
  ): Promise<void> {
    await this.consent.revokeProtocolKey(person, id);
  }

  @Post('mandates/:id/revoke')
  @Redirect('/app/consent', 303)
  async revokeMandate(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Body() _form: CsrfForm,
  ): Promise<void> {
    await this.consent.revokeMandate(person, id);
  }

  @Post('tokens/:id/revoke')
  @Redirect('/app/consent', 303)
  async revokeToken(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Body() _form: CsrfForm,
  ): Promise<void> {
    await this.consent.revokeToken(person, id);
  }
}
