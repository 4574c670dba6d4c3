import {
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  Post,
  Redirect,
  Render,
  Res,
} from '@nestjs/common';
import type { Response } from 'express';

import { Translator } from '../common/i18n/catalogue';
import { PageLanguage } from '../common/i18n/page-language.decorator';
import { AppController, CurrentPerson, SignedIn } from '../web/current-person.decorator';
import { DecisionForm } from '../web/dto/app-forms.dto';
import type { SignedInPerson } from '../web/signed-in-person';
import { ConsentService, RevokeKind } from './consent.service';
import { IssueProtocolKeyForm } from './dto/consent-forms.dto';

/**
 * {appUrl}/consent: a signed-in person sees and revokes what agents may do. Every form carries
 * _csrf; a revocation needs `confirm=yes` from its confirmation page (without it the person is
 * sent there and nothing changes).
 */
@AppController()
@SignedIn()
@Controller('app/consent')
export class ConsentController {
  constructor(private readonly consent: ConsentService) {}

  @Get()
  @Render('app/consent')
  page(@CurrentPerson() person: SignedInPerson, @PageLanguage() tr: Translator) {
    return this.consent.page(person, tr);
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

  @Get('protocol-keys/:id/revoke')
  confirmProtocolKey(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @PageLanguage() tr: Translator,
    @Res() res: Response,
  ) {
    return this.confirm(person, 'protocol-keys', id, res, tr);
  }

  @Get('mandates/:id/revoke')
  confirmMandate(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @PageLanguage() tr: Translator,
    @Res() res: Response,
  ) {
    return this.confirm(person, 'mandates', id, res, tr);
  }

  @Get('tokens/:id/revoke')
  confirmToken(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @PageLanguage() tr: Translator,
    @Res() res: Response,
  ) {
    return this.confirm(person, 'tokens', id, res, tr);
  }

  @Post('protocol-keys/:id/revoke')
  @Redirect('/app/consent', 303)
  revokeProtocolKey(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Body() form: DecisionForm,
  ) {
    return this.revokeIfConfirmed('protocol-keys', id, form, () =>
      this.consent.revokeProtocolKey(person, id),
    );
  }

  @Post('mandates/:id/revoke')
  @Redirect('/app/consent', 303)
  revokeMandate(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Body() form: DecisionForm,
  ) {
    return this.revokeIfConfirmed('mandates', id, form, () =>
      this.consent.revokeMandate(person, id),
    );
  }

  @Post('tokens/:id/revoke')
  @Redirect('/app/consent', 303)
  revokeToken(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Body() form: DecisionForm,
  ) {
    return this.revokeIfConfirmed('tokens', id, form, () => this.consent.revokeToken(person, id));
  }

  /** Revokes only with `confirm=yes`; without it, sends the person to the confirmation page. */
  private async revokeIfConfirmed(
    kind: RevokeKind,
    id: string,
    form: DecisionForm,
    revoke: () => Promise<void>,
  ): Promise<{ url: string } | undefined> {
    if (form.confirm !== 'yes') {
      return { url: confirmUrl(kind, id) };
    }
    await revoke();
    return undefined;
  }

  private async confirm(
    person: SignedInPerson,
    kind: RevokeKind,
    id: string,
    res: Response,
    tr: Translator,
  ): Promise<void> {
    const page = await this.consent.revokeConfirmPage(person, kind, id, tr);
    if (page) {
      res.render('app/revoke-confirm', page);
    } else {
      res.redirect(303, '/app/consent');
    }
  }
}

function confirmUrl(kind: RevokeKind, id: string): string {
  return `/app/consent/${kind}/${encodeURIComponent(id)}/revoke`;
}
