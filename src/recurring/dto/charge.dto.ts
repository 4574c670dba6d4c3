import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsDefined,
  IsInt,
  IsOptional,
  IsRFC3339,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';

import { PageQuery } from '../../common/pagination';
import { MAX_PER_PAYMENT_CAP_PAISE } from '../../mandates/dto/create-mandate.dto';
import type { ChargeAuthorisation, ChargeStatus } from '../recurring-charge.entity';

/** The longest reason a notice carries (it is read on a phone). */
export const REASON_MAX = 140;

export class CreateChargeDto {
  @ApiProperty({
    minimum: 100,
    maximum: MAX_PER_PAYMENT_CAP_PAISE,
    example: 49900,
    description: 'The exact amount to debit, in paise; at most the mandate per-debit cap',
  })
  @IsDefined()
  @IsInt()
  @Min(100)
  @Max(MAX_PER_PAYMENT_CAP_PAISE)
  amount_paise: number;

  @ApiProperty({ maxLength: 200, example: 'November plan' })
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  description: string;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: REASON_MAX,
    example: 'Tea subscription, December',
    description:
      'Why this debit is made, as the person will read it in the pre-debit notice (RBI E-Mandate Framework 2026). Absent: the description',
  })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(REASON_MAX)
  reason?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description:
      'Not before this instant (RFC 3339). The debit is never earlier than 24 hours after the notice (now) and never inside a blocked window',
  })
  @IsOptional()
  @IsRFC3339()
  debit_after?: string;
}

export class ListChargesQuery extends PageQuery {}

export class BillingCycleResponse {
  @ApiProperty({
    nullable: true,
    type: Number,
    description:
      '0 for the cycle that starts with the mandate; null on an as_presented mandate (no cycle: start and end are the mandate validity)',
  })
  index: number | null;
  @ApiProperty({ format: 'date-time' }) start: string;
  @ApiProperty({ format: 'date-time', description: 'exclusive' }) end: string;
}

export class MandateReferenceResponse {
  @ApiProperty({ example: 'mdt_…', description: 'Our mandate id' }) id: string;
  @ApiProperty({
    nullable: true,
    type: String,
    description: "The gateway's UPI mandate (AutoPay token) reference, on the gateway rail",
  })
  upi_mandate_ref: string | null;
}

export class OptOutResponse {
  @ApiProperty({ description: "The person's app page to opt out of this debit" }) url: string;
  @ApiProperty({ example: 'POST /v1/pay/mandates/mdt_…/charges/rch_…/opt-out' }) api: string;
}

export class ChargeResponse {
  @ApiProperty({ example: 'rch_…' }) id: string;
  @ApiProperty({ enum: ['recurring_charge'] }) object: 'recurring_charge';
  @ApiProperty({ example: 'mdt_…' }) mandate_id: string;
  @ApiProperty({ example: 'agt_…' }) buyer_agent_id: string;
  @ApiProperty({ example: 'agt_…' }) seller_agent_id: string;
  @ApiProperty({ description: 'paise' }) amount_paise: number;
  @ApiProperty({ enum: ['INR'] }) currency: 'INR';
  @ApiProperty() description: string;
  @ApiProperty({ description: 'Why the seller debits (named in the pre-debit notice)' })
  reason: string;
  @ApiProperty({ type: MandateReferenceResponse }) mandate_reference: MandateReferenceResponse;
  @ApiProperty({
    description:
      "Scheduled before any debit on the mandate settled: the person authenticates it (approval, or the mandate's authorisation)",
  })
  first_debit: boolean;
  @ApiProperty({
    enum: [
      'awaiting_authorisation',
      'scheduled',
      'processing',
      'settled',
      'failed',
      'declined',
      'cancelled',
      'expired',
    ],
  })
  status: ChargeStatus;
  @ApiProperty({ format: 'date-time', description: 'When the pre-debit notice went out' })
  notice_at: string;
  @ApiProperty({
    format: 'date-time',
    description: 'When the debit is attempted: ≥ 24 h after notice_at, outside the blocked windows',
  })
  debit_at: string;
  @ApiProperty({ type: BillingCycleResponse }) billing_cycle: BillingCycleResponse;
  @ApiProperty({
    enum: ['none', 'approval', 'upi_afa', 'with_registration'],
    description:
      "What the person must do first: none (≤ ₹2,000, not the first debit), approval (above ₹2,000, or the mandate's first debit), upi_afa (above ₹15,000), with_registration (a first debit scheduled while the mandate awaited authorisation: authorising the mandate authorises it)",
  })
  authorisation: ChargeAuthorisation;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) authorised_at: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'The payment intent, once debited' })
  intent_id: string | null;
  @ApiProperty({ nullable: true, type: String }) failure_code: string | null;
  @ApiProperty({ nullable: true, type: String }) failure_reason: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) cancelled_at: string | null;
  @ApiProperty({
    nullable: true,
    type: OptOutResponse,
    description: 'How the person opts out of this one debit (null once it can no longer be)',
  })
  opt_out: OptOutResponse | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}
