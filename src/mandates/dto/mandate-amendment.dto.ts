import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsInt,
  IsOptional,
  IsRFC3339,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';

import { PageQuery } from '../../common/pagination';
import type { AmendableTerm, AmendmentStatus } from '../mandate-amendment.entity';
import { MAX_PER_PAYMENT_CAP_PAISE } from './create-mandate.dto';

const AGENT_ID = /^agt_[A-Za-z0-9]+$/;

/** POST /v1/pay/mandates/{id}/amendments: the terms to change (at least one). */
export class CreateMandateAmendmentDto {
  @ApiPropertyOptional({
    minimum: 1,
    maximum: MAX_PER_PAYMENT_CAP_PAISE,
    example: 150000,
    description: 'New per-payment cap (a recurring mandate: maximum per debit), in paise',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_PER_PAYMENT_CAP_PAISE)
  per_payment_cap_paise?: number;

  @ApiPropertyOptional({
    format: 'date-time',
    description: 'New end of validity (RFC 3339): in the future, at most one year from now',
  })
  @IsOptional()
  @IsRFC3339()
  valid_until?: string;

  @ApiPropertyOptional({
    type: [String],
    nullable: true,
    description:
      'New seller list (replaces the old one); null = any seller (not for a recurring mandate)',
  })
  @ValidateIf(
    (o: CreateMandateAmendmentDto) => o.payee_agent_ids !== undefined && o.payee_agent_ids !== null,
  )
  @IsArray()
  @ArrayMinSize(1, {
    message: 'payee_agent_ids must list at least one seller, or be null for any seller',
  })
  @ArrayMaxSize(50)
  @ArrayUnique()
  @IsString({ each: true })
  @Matches(AGENT_ID, { each: true })
  payee_agent_ids?: string[] | null;

  @ApiPropertyOptional({ maxLength: 200, example: 'Plan price goes up in January' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  reason?: string;
}

export class ListMandateAmendmentsQuery extends PageQuery {}

export class MandateTermsResponse {
  @ApiProperty({ description: 'paise' }) per_payment_cap_paise: number;
  @ApiProperty({ format: 'date-time' }) valid_until: string;
  @ApiProperty({ type: [String], nullable: true, description: 'null = any seller' })
  payee_agent_ids: string[] | null;
}

export class AmendmentChainResponse {
  @ApiProperty({
    example: 'mdt_…',
    description:
      "The mandate's receipt chain (its id is the mandate's): every amendment request and decision is a signed entry",
  })
  id: string;
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'object' },
    description:
      'The chain entries (GET of one amendment only), each signed; verify with /.well-known/jwks.json',
  })
  entries?: object[];
}

export class MandateAmendmentResponse {
  @ApiProperty({ example: 'mam_…' }) id: string;
  @ApiProperty({ enum: ['mandate_amendment'] }) object: 'mandate_amendment';
  @ApiProperty({ example: 'mdt_…' }) mandate_id: string;
  @ApiProperty({
    enum: ['pending', 'authorised', 'declined', 'expired', 'withdrawn'],
    description:
      'pending until the person answers; until authorised the old terms apply. withdrawn: the mandate ended first',
  })
  status: AmendmentStatus;
  @ApiProperty({ type: MandateTermsResponse }) old_terms: MandateTermsResponse;
  @ApiProperty({ type: MandateTermsResponse }) new_terms: MandateTermsResponse;
  @ApiProperty({
    type: [String],
    enum: ['per_payment_cap_paise', 'valid_until', 'payee_agent_ids'],
  })
  changed: AmendableTerm[];
  @ApiProperty({ nullable: true, type: String }) reason: string | null;
  @ApiProperty({ description: 'Page where a person of the workspace authorises or declines it' })
  authorization_url: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) expires_at: string;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) decided_at: string | null;
  @ApiProperty({ nullable: true, type: String }) decision_note: string | null;
  @ApiProperty({ type: AmendmentChainResponse }) receipt_chain: AmendmentChainResponse;
}
