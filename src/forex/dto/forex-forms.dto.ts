import { IsOptional, IsString, MaxLength } from 'class-validator';

import { CsrfForm } from '../../web/dto/app-forms.dto';

/* Form bodies of the declaration pages and the dealer desk; content is checked by the services. */

export class DeclareForm extends CsrfForm {
  /** The "I declare" checkbox: `yes` when ticked. */
  @IsOptional() @IsString() @MaxLength(10) confirm?: string;
}

export class BookForm extends CsrfForm {
  @IsString() @MaxLength(200) deal_reference: string;
}

export class DealerNoteForm extends CsrfForm {
  @IsString() @MaxLength(2000) note: string;
}

export class RatesForm extends CsrfForm {
  @IsString() @MaxLength(30) notes_buy: string;
  @IsString() @MaxLength(30) notes_sell: string;
  @IsString() @MaxLength(30) card_buy: string;
  @IsString() @MaxLength(30) card_sell: string;
}
