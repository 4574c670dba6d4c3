import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  Length,
  MaxLength,
  ValidateBy,
  ValidateIf,
  ValidateNested,
  ValidationOptions,
} from 'class-validator';

/*
 * DelegatePaymentRequest of ACP 2026-04-17 (docs/acp.md §6), closed at every level by the global
 * whitelist. These classes check the official schema's shapes (types, required, lengths, enums
 * of risk signals); the allowance's business values (reason, currency, amount, expiry) are the
 * service's rules and answer invalid_allowance. payment_method is parsed by payment-method.ts,
 * so a card is refused as invalid_card instead of as an unknown field.
 */

const present = (field: string) => (o: Record<string, unknown>) => o[field] !== undefined;

function IsStringMap(options?: ValidationOptions) {
  return ValidateBy(
    {
      name: 'isStringMap',
      validator: {
        validate: (v: unknown) =>
          typeof v === 'object' &&
          v !== null &&
          !Array.isArray(v) &&
          Object.values(v).every((x) => typeof x === 'string'),
        defaultMessage: () => 'must be an object whose values are all strings',
      },
    },
    options,
  );
}

export class PaymentMethodSvcMandate {
  @ApiProperty({
    enum: ['svc_mandate'],
    description: 'Cards ("card") are refused with invalid_card',
  })
  type: 'svc_mandate';
  @ApiPropertyOptional({
    example: 'mdt_…',
    pattern: '^mdt_',
    description:
      'A mandate of this buyer agent. Omitted: a one-time mandate scoped to the allowance is created and awaits the person',
  })
  mandate_id?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  metadata?: Record<string, string>;
}

export class AllowanceDto {
  @ApiProperty({ enum: ['one_time'] })
  @IsDefined()
  @IsString()
  reason: string;

  @ApiProperty({
    description: 'Largest charge in paise; > 0 and within the mandate per-payment cap',
    example: 50000,
  })
  @IsDefined()
  @IsInt()
  max_amount: number;

  @ApiProperty({ enum: ['inr'] })
  @IsDefined()
  @IsString()
  currency: string;

  @ApiProperty({ example: 'cs_…', description: 'An open checkout session' })
  @IsDefined()
  @IsString()
  @MaxLength(255)
  checkout_session_id: string;

  @ApiProperty({ example: 'agt_…', maxLength: 256, description: "The session's seller agent" })
  @IsDefined()
  @IsString()
  @MaxLength(256)
  merchant_id: string;

  @ApiProperty({
    format: 'date-time',
    description: 'RFC 3339; in the future, at most 7 days ahead and within the mandate validity',
  })
  @IsDefined()
  @IsString()
  @MaxLength(64)
  expires_at: string;
}

export class RiskSignalDto {
  @ApiProperty({ enum: ['card_testing'] })
  @IsDefined()
  @IsIn(['card_testing'])
  type: 'card_testing';

  @ApiProperty()
  @IsDefined()
  @IsInt()
  score: number;

  @ApiProperty({ enum: ['blocked', 'manual_review', 'authorized'] })
  @IsDefined()
  @IsIn(['blocked', 'manual_review', 'authorized'])
  action: 'blocked' | 'manual_review' | 'authorized';
}

/**
 * The PSP's `billing_address` (closed). Its own name: checkout's `AddressDto`
 * (src/checkout/dto/checkout-request.parts.ts) differs (it has `company`, `state` is shorter), and
 * two classes of one name would share one schema in openapi/openapi.json.
 */
export class BillingAddressDto {
  @ApiProperty({ maxLength: 256 }) @IsDefined() @IsString() @MaxLength(256) name: string;
  @ApiProperty({ maxLength: 60 }) @IsDefined() @IsString() @MaxLength(60) line_one: string;
  @ApiPropertyOptional({ maxLength: 60 })
  @ValidateIf(present('line_two'))
  @IsString()
  @MaxLength(60)
  line_two?: string;
  @ApiProperty({ maxLength: 60 }) @IsDefined() @IsString() @MaxLength(60) city: string;
  @ApiProperty({ maxLength: 100 }) @IsDefined() @IsString() @MaxLength(100) state: string;
  @ApiProperty({ minLength: 2, maxLength: 2 })
  @IsDefined()
  @IsString()
  @Length(2, 2)
  country: string;
  @ApiProperty({ maxLength: 20 }) @IsDefined() @IsString() @MaxLength(20) postal_code: string;
}

export class DelegatePaymentDto {
  @ApiProperty({ type: () => PaymentMethodSvcMandate })
  @IsDefined()
  @IsObject()
  payment_method: Record<string, unknown>;

  @ApiProperty({ type: () => AllowanceDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => AllowanceDto)
  allowance: AllowanceDto;

  @ApiPropertyOptional({ type: () => BillingAddressDto })
  @ValidateIf(present('billing_address'))
  @IsObject()
  @ValidateNested()
  @Type(() => BillingAddressDto)
  billing_address?: BillingAddressDto;

  @ApiProperty({ type: () => [RiskSignalDto], description: 'May be empty' })
  @IsDefined()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => RiskSignalDto)
  risk_signals: RiskSignalDto[];

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'May be empty; echoed in the response metadata',
  })
  @IsDefined()
  @IsStringMap()
  metadata: Record<string, string>;
}
