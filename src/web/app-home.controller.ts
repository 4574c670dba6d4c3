import { Body, Controller, Get, HttpCode, Param, Post, Redirect, Render } from '@nestjs/common';
import { AppHomeService } from './app-home.service';
import { AppController, CurrentPerson, SignedIn } from './current-person.decorator';
import { CreateApiKeyForm, CsrfForm } from './dto/app-forms.dto';
import type { SignedInPerson } from './signed-in-person';

/** The signed-in home page and its API-key forms. */
@AppController()
@SignedIn()
@Controller('app')
export class AppHomeController {
  constructor(private readonly home: AppHomeService) {}

  @Get()
  @Render('app/home')
  homePage(@CurrentPerson() person: SignedInPerson) {
    return this.home.homePage(person);
  }

  @Post('api-keys')
  @HttpCode(200)
  @Render('app/api-key-created')
  createApiKey(@CurrentPerson() person: SignedInPerson, @Body() form: CreateApiKeyForm) {
    return this.home.createApiKey(person, form.name);
  }

  @Post('api-keys/:id/revoke')
  @Redirect('/app', 303)
  async revokeApiKey(
    @CurrentPerson() person: SignedInPerson,
    @Param('id') id: string,
    @Body() _form: CsrfForm,
  ): Promise<void> {
    await this.home.revokeApiKey(person, id);
  }
}
