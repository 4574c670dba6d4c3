import { IsOptional, IsString, MaxLength } from 'class-validator';

import { CsrfForm } from '../../web/dto/app-forms.dto';

/*
 * Form bodies of the breach register (application/x-www-form-urlencoded). Sizes only: content
 * rules (times, ids) are checked by BreachesOpsController and BreachRegisterService.
 */

export class RecordBreachForm extends CsrfForm {
  @IsString() @MaxLength(2000) summary: string;
  @IsString() @MaxLength(2000) extent: string;
  @IsString() @MaxLength(500) location: string;
  @IsString() @MaxLength(2000) data_categories: string;
  @IsString() @MaxLength(2000) likely_consequences: string;
  @IsString() @MaxLength(2000) mitigation: string;
  @IsString() @MaxLength(2000) person_actions: string;
  @IsString() @MaxLength(40) occurred_at: string;
  @IsString() @MaxLength(40) aware_at: string;
  /** Person ids (per_…), separated by spaces, commas or new lines. */
  @IsOptional() @IsString() @MaxLength(20000) person_ids?: string;
  /** Workspace ids (ws_…): every person of each. */
  @IsOptional() @IsString() @MaxLength(20000) workspace_ids?: string;
  @IsOptional() @IsString() @MaxLength(4000) facts_and_reasons?: string;
  @IsOptional() @IsString() @MaxLength(4000) responsible_findings?: string;
  @IsOptional() @IsString() @MaxLength(4000) remedial_measures?: string;
}

export class BreachDetailsForm extends CsrfForm {
  @IsOptional() @IsString() @MaxLength(4000) facts_and_reasons?: string;
  @IsOptional() @IsString() @MaxLength(4000) responsible_findings?: string;
  @IsOptional() @IsString() @MaxLength(4000) remedial_measures?: string;
}

export class BoardReportedForm extends CsrfForm {
  @IsOptional() @IsString() @MaxLength(200) board_reference?: string;
}
