import { Controller, Get, Param, Render } from '@nestjs/common';

import type { Translator } from '../common/i18n/catalogue';
import { PageLanguage } from '../common/i18n/page-language.decorator';
import { AppReceiptsService } from './app-receipts.service';
import { AppController, CurrentPerson, SignedIn } from './current-person.decorator';
import type { SignedInPerson } from './signed-in-person';

/** {appUrl}/receipts/:receipt_id: a payment's signed receipt, for a person of the buyer's or seller's workspace. */
@AppController()
@SignedIn()
@Controller('app/receipts')
export class AppReceiptsController {
  constructor(private readonly receipts: AppReceiptsService) {}

  @Get(':receipt_id')
  @Render('app/receipt')
  receipt(
    @CurrentPerson() person: SignedInPerson,
    @Param('receipt_id') id: string,
    @PageLanguage() tr: Translator,
  ) {
    return this.receipts.receiptPage(person, id, tr);
  }
}
