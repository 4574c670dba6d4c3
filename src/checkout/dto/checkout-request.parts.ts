import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsDefined,
  IsEmail,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
  ValidationArguments,
} from 'class-validator';

import { MAX_UNIT_PAISE } from '../../seller/dto/put-listing.dto';
import { MAX_LINE_QUANTITY, MAX_REQUESTED_QUANTITY } from '../checkout-pricing';

/**
 * Optional but never null: the 2026-04-17 schema allows no null anywhere (docs/acp.md §1 step 6),
 * so an absent key is skipped and a null one fails the validators that follow.
 */
export const Optional = () => ValidateIf((_o: unknown, v: unknown) => v !== undefined);

/** ACP `Item` (closed) plus our optional `quantity` (docs/acp.md §4, "Deviations"). */
export class ItemDto {
  @ApiProperty({ example: 'sku_tea_1kg', description: 'The published offer SKU' })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  id: string;

  @ApiPropertyOptional({ description: 'Hint only; the published offer name is used' })
  @Optional()
  @IsString()
  @MaxLength(500)
  name?: string;

  @ApiPropertyOptional({
    minimum: 0,
    maximum: MAX_UNIT_PAISE,
    description:
      'Hint only (paise); the published price decides and a difference adds a price_change warning',
  })
  @Optional()
  @IsInt()
  @Min(0)
  @Max(MAX_UNIT_PAISE)
  unit_amount?: number;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: MAX_REQUESTED_QUANTITY,
    default: 1,
    description: `Deviation: not in the 2026-04-17 Item schema. Above ${MAX_LINE_QUANTITY} the session is not_ready_for_payment (quantity_exceeded); above ${MAX_REQUESTED_QUANTITY} the request is refused`,
  })
  @Optional()
  @IsInt()
  @Min(1)
  @Max(MAX_REQUESTED_QUANTITY)
  quantity?: number;
}

/** ACP `Buyer`, the subset we keep. */
export class BuyerDto {
  @ApiProperty({ format: 'email' })
  @IsDefined()
  @IsString()
  @IsEmail()
  @MaxLength(320)
  email: string;

  @ApiPropertyOptional() @Optional() @IsString() @MaxLength(200) first_name?: string;
  @ApiPropertyOptional() @Optional() @IsString() @MaxLength(200) last_name?: string;
  @ApiPropertyOptional() @Optional() @IsString() @MaxLength(400) full_name?: string;
  @ApiPropertyOptional() @Optional() @IsString() @MaxLength(40) phone_number?: string;
}

export class DiscountsDto {
  @ApiPropertyOptional({ type: [String] })
  @Optional()
  @IsArray()
  @IsString({ each: true })
  codes?: string[];
}

export class SelectedFulfillmentOptionDto {
  @ApiProperty({ enum: ['shipping', 'digital', 'pickup', 'local_delivery'] })
  @IsDefined()
  @IsIn(['shipping', 'digital', 'pickup', 'local_delivery'])
  type: string;

  @ApiProperty({ example: 'fo_digital' })
  @IsDefined()
  @IsString()
  option_id: string;

  @ApiProperty({ type: [String], description: 'Line item ids (item ids are accepted too)' })
  @IsDefined()
  @IsArray()
  @IsString({ each: true })
  item_ids: string[];
}

/** ACP `Address` (closed). */
export class AddressDto {
  @ApiProperty() @IsDefined() @IsString() @MaxLength(256) name: string;
  @ApiProperty() @IsDefined() @IsString() @MaxLength(60) line_one: string;
  @ApiPropertyOptional() @Optional() @IsString() @MaxLength(60) line_two?: string;
  @ApiProperty() @IsDefined() @IsString() @MaxLength(60) city: string;
  @ApiProperty() @IsDefined() @IsString() @MaxLength(60) state: string;
  @ApiProperty() @IsDefined() @IsString() @Length(2, 2) country: string;
  @ApiProperty() @IsDefined() @IsString() @MaxLength(20) postal_code: string;
  @ApiPropertyOptional() @Optional() @IsString() @MaxLength(256) company?: string;
}

export class RiskSignalsDto {
  @ApiPropertyOptional() @Optional() @IsString() ip_address?: string;
  @ApiPropertyOptional() @Optional() @IsString() user_agent?: string;
  @ApiPropertyOptional() @Optional() @IsString() accept_language?: string;
  @ApiPropertyOptional() @Optional() @IsString() session_id?: string;
  @ApiPropertyOptional() @Optional() @IsString() device_fingerprint?: string;
}

export class MarketingConsentDto {
  @ApiProperty() @IsDefined() @IsString() channel: string;
  @ApiProperty() @IsDefined() @IsBoolean() opted_in: boolean;
}

/**
 * For arrays of nested DTOs: every element must be a JSON object. ValidateNested alone descends
 * into a nested array (`[[{…}]]`) and validates its elements instead, so `[[]]` would pass.
 */
export const EachObject = () =>
  IsObject({
    each: true,
    message: (args: ValidationArguments) => {
      const items = Array.isArray(args.value) ? (args.value as unknown[]) : [];
      const i = items.findIndex((v) => v === null || typeof v !== 'object' || Array.isArray(v));
      return `element ${i} must be a JSON object`;
    },
  });

/** An optional ACP object we accept (schema-closed callers send it) but do not act on. */
export const AcceptedObject = (description: string) =>
  applyDecorators(
    ApiPropertyOptional({ type: 'object', additionalProperties: true, description }),
    Optional(),
    IsObject(),
  );

/** An optional ACP array we accept but do not act on. */
export const AcceptedArray = (description: string) =>
  applyDecorators(
    ApiPropertyOptional({ type: 'array', items: { type: 'object' }, description }),
    Optional(),
    IsArray(),
  );

/** The optional `buyer` object shared by create, update and complete. */
export const OptionalBuyer = () =>
  applyDecorators(
    ApiPropertyOptional({ type: BuyerDto }),
    Optional(),
    IsObject(),
    ValidateNested(),
    Type(() => BuyerDto),
  );
