import { IsOptional, IsString, MaxLength } from 'class-validator';

/*
 * Form bodies (application/x-www-form-urlencoded). Field names are the HTML input names. Content
 * rules (lengths, email shape) are checked by the services so the form can be shown again with
 * the message; these classes only bound sizes and satisfy the global whitelist.
 */

export class CsrfForm {
  @IsString() @MaxLength(200) _csrf: string;
}

export class SignupForm extends CsrfForm {
  @IsString() @MaxLength(200) workspace_name: string;
  @IsString() @MaxLength(200) name: string;
  @IsString() @MaxLength(320) email: string;
  @IsString() @MaxLength(1024) password: string;
}

export class LoginForm extends CsrfForm {
  @IsString() @MaxLength(320) email: string;
  @IsString() @MaxLength(1024) password: string;
  @IsOptional() @IsString() @MaxLength(2000) next?: string;
}

export class CreateApiKeyForm extends CsrfForm {
  @IsString() @MaxLength(200) name: string;
}

/** An answer that may need a confirmation step: the confirmation page sends `confirm=yes`. */
export class DecisionForm extends CsrfForm {
  @IsOptional() @IsString() @MaxLength(10) confirm?: string;
}
