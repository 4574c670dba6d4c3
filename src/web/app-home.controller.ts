import {
  Body,
  Controller,
  Get,
  HttpCode,
  OnModuleInit,
  Param,
  Post,
  Redirect,
  Render,
} from '@nestjs/common';

import { Translator } from '../common/i18n/catalogue';
import { PageLanguage } from '../common/i18n/page-language.decorator';
import { AppHomeService } from './app-home.service';
import { AppLayout } from './app-layout.service';
import { AppController, CurrentPerson, SignedIn } from './current-person.decorator';
import { CreateApiKeyForm, CsrfForm } from './dto/app-forms.dto';
import type { SignedInPerson } from './signed-in-person';

/** The signed-in home (a person's overview) and the developer console with its API-key forms. */
@AppController()
@SignedIn()
@Controller('app')
export class AppHomeController implements OnModuleInit {
  constructor(
    private readonly home: AppHomeService,
    private readonly layout: AppLayout,
  ) {}

  onModuleInit(): void {
    this.layout.registerNav({
      key: 'developers',
      label: 'app.nav.developers',
      href: '/app/developers',
      order: 90,
    });
  }

  @Get()
  @Render('app/home')
  homePage(@CurrentPerson() person: SignedInPerson, @PageLanguage() tr: Translator) {
    return this.home.homePage(person, tr);
  }

  @Get('developers')
  @Render('app/developers')
  developersPage(@CurrentPerson() person: SignedInPerson, @PageLanguage() tr: Translator) {
    return this.home.developersPage(person, tr);
  }

  @Post('api-keys')
  @HttpCode(200)
  @Render('app/api-key-created')
  createApiKey(
    @CurrentPerson() person: SignedInPerson,
    @Body() form: CreateApiKeyForm,
    @PageLanguage() tr: Translator,
  ) {
    return this.home.createApiKey(person, form.name, tr);
  }

  @Post('api-keys/:id/revoke')
  @Redirect('/app/developers', 303)
  async revokeApiKey(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Body() _form: CsrfForm,
  ): Promise<void> {
    await this.home.revokeApiKey(person, id);
  }
}
