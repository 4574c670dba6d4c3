import { IsOptional, IsString, MaxLength } from 'class-validator';

import { CsrfForm } from '../../web/dto/app-forms.dto';

/** Issue a protocol key from the consent centre. Values are checked by ConsentService / ProtocolKeysService. */
export class IssueProtocolKeyForm extends CsrfForm {
  @IsString() @MaxLength(20) role: string;
  @IsString() @MaxLength(100) agent_id: string;
  @IsOptional() @IsString() @MaxLength(200) name?: string;
  @IsOptional() @IsString() @MaxLength(8000) public_key?: string;
}
