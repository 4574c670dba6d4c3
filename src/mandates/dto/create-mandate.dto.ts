import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsRFC3339,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';

import { MANDATE_BILLING_CYCLES, type MandateBillingCycle } from '../../recurring/autopay-schedule';
import type { MandateRail } from '../mandate.entity';

/**
 * ₹5 lakh: the largest per-payment cap the sandbox accepts. It is UPI's highest per-transaction
 * limit, allowed only for some merchant categories (e.g. tax, hospitals, education); most are ₹1 lakh.
 */
export const MAX_PER_PAYMENT_CAP_PAISE = 50_000_000;
const AGENT_ID = /^agt_[A-Za-z0-9]+$/;

export class RecurringTermsDto {
  @ApiProperty({
    enum: MANDATE_BILLING_CYCLES,
    example: 'monthly',
    description:
      'A fixed cycle (at most one debit per cycle) or as_presented (debits as bills fall due; each still announced 24 hours ahead)',
  })
  @IsDefined()
  @IsIn(MANDATE_BILLING_CYCLES)
  billing_cycle: MandateBillingCycle;
}

export class CreateMandateDto {
  @ApiPropertyOptional({
    example: 'agt_…',
    description: 'Required with an API key; an agent credential creates mandates for itself',
  })
  @IsOptional()
  @IsString()
  @Matches(AGENT_ID)
  buyer_agent_id?: string;

  @ApiProperty({
    minimum: 1,
    maximum: MAX_PER_PAYMENT_CAP_PAISE,
    example: 500000,
    description:
      'Largest single payment, in paise (sandbox max ₹5,00,000). On a recurring mandate this is the maximum per debit the agent proposes: the person may lower it when authorising',
  })
  @IsDefined()
  @IsInt()
  @Min(1)
  @Max(MAX_PER_PAYMENT_CAP_PAISE)
  per_payment_cap_paise: number;

  @ApiPropertyOptional({
    type: [String],
    nullable: true,
    example: ['agt_…'],
    description: 'Seller agents this mandate may pay; absent or null = any seller',
  })
  @ValidateIf(
    (o: CreateMandateDto) => o.payee_agent_ids !== undefined && o.payee_agent_ids !== null,
  )
  @IsArray()
  @ArrayMinSize(1, {
    message:
      'payee_agent_ids must list at least one seller; omit it (or send null) to allow any seller',
  })
  @ArrayMaxSize(50)
  @ArrayUnique()
  @IsString({ each: true })
  @Matches(AGENT_ID, { each: true })
  payee_agent_ids?: string[] | null;

  @ApiPropertyOptional({ format: 'date-time', description: 'RFC 3339; defaults to now' })
  @IsOptional()
  @IsRFC3339()
  valid_from?: string;

  @ApiProperty({
    format: 'date-time',
    description: 'RFC 3339; in the future and at most one year ahead',
  })
  @IsDefined()
  @IsRFC3339()
  valid_until: string;

  @ApiPropertyOptional({
    enum: ['upi_reserve_pay', 'upi_otm', 'upi_autopay'],
    description:
      'Required for a standing mandate (upi_reserve_pay or upi_otm); a recurring mandate is always upi_autopay',
  })
  @ValidateIf((o: CreateMandateDto) => o.kind !== 'recurring' || o.rail !== undefined)
  @IsDefined()
  @IsIn(['upi_reserve_pay', 'upi_otm', 'upi_autopay'])
  rail?: MandateRail;

  @ApiPropertyOptional({
    enum: ['standing', 'recurring'],
    default: 'standing',
    description:
      'standing: agents pay under it (checkouts, quotes). recurring: UPI AutoPay, sellers on payee_agent_ids schedule charges against it (POST /v1/pay/mandates/{id}/charges), each announced 24 hours ahead',
  })
  @IsOptional()
  @IsIn(['standing', 'recurring'])
  kind?: 'standing' | 'recurring';

  @ApiPropertyOptional({
    type: RecurringTermsDto,
    description: 'Required when kind is recurring (shaped like ACP allowance reason "recurring")',
  })
  @ValidateIf((o: CreateMandateDto) => o.kind === 'recurring' || o.recurring !== undefined)
  @IsDefined({ message: 'recurring.billing_cycle is required for a recurring mandate' })
  @IsObject()
  @ValidateNested()
  @Type(() => RecurringTermsDto)
  recurring?: RecurringTermsDto;

  @ApiPropertyOptional({ maxLength: 200, example: 'Groceries up to ₹5,000 a time' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  description?: string;
}
