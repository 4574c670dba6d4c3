import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { plainToInstance, Transform, Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsDefined,
  IsEmail,
  IsIn,
  IsInt,
  IsISO8601,
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

/**
 * `PriceSource` of the suggested_price extension (docs/acp.md "Accepted extensions", ACP PR #201),
 * closed: where the agent saw the price.
 */
export class PriceSourceDto {
  @ApiProperty({ example: 'feed_8f3K2x' })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  feed_id: string;

  @ApiPropertyOptional() @Optional() @IsString() @MaxLength(256) feed_update_id?: string;

  @ApiPropertyOptional({ format: 'date-time' })
  @Optional()
  @IsString()
  @IsISO8601({ strict: true })
  updated_at?: string;

  @ApiPropertyOptional({ description: 'e.g. api, file, partner_platform' })
  @Optional()
  @IsString()
  @MaxLength(64)
  channel?: string;
}

/**
 * `SuggestedPrice` (ACP PR #201, an accepted extension: docs/acp.md "Accepted extensions"), closed.
 * Never changes the price: the published offer decides; a different amount adds an info message.
 */
export class SuggestedPriceDto {
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: MAX_UNIT_PAISE,
    description: 'Paise per unit',
  })
  @IsDefined()
  @IsInt()
  @Min(0)
  @Max(MAX_UNIT_PAISE)
  amount: number;

  @ApiProperty({ type: PriceSourceDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => PriceSourceDto)
  source: PriceSourceDto;

  @ApiProperty({ format: 'date-time' })
  @IsDefined()
  @IsString()
  @IsISO8601({ strict: true })
  observed_at: string;
}

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
    type: 'integer',
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

  @ApiPropertyOptional({
    type: SuggestedPriceDto,
    description:
      'Accepted extension (ACP PR #201): the price the agent showed. The published price still applies; when it differs, an info message names it',
  })
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => SuggestedPriceDto)
  suggested_price?: SuggestedPriceDto;
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

export const FULFILLMENT_TYPES = ['shipping', 'digital', 'pickup', 'local_delivery'] as const;

export class SelectedFulfillmentOptionDto {
  @ApiProperty({ enum: FULFILLMENT_TYPES })
  @IsDefined()
  @IsIn(FULFILLMENT_TYPES)
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
  @ApiProperty({ maxLength: 256 }) @IsDefined() @IsString() @MaxLength(256) name: string;
  @ApiProperty({ maxLength: 60 }) @IsDefined() @IsString() @MaxLength(60) line_one: string;
  @ApiPropertyOptional({ maxLength: 60 }) @Optional() @IsString() @MaxLength(60) line_two?: string;
  @ApiProperty({ maxLength: 60 }) @IsDefined() @IsString() @MaxLength(60) city: string;
  @ApiProperty({ maxLength: 60 }) @IsDefined() @IsString() @MaxLength(60) state: string;
  @ApiProperty({ minLength: 2, maxLength: 2 })
  @IsDefined()
  @IsString()
  @Length(2, 2)
  country: string;
  @ApiProperty({ maxLength: 20 }) @IsDefined() @IsString() @MaxLength(20) postal_code: string;
  @ApiPropertyOptional({ maxLength: 256 })
  @Optional()
  @IsString()
  @MaxLength(256)
  company?: string;
}

/**
 * ACP `FulfillmentDetails` (closed; every field optional). Create, update and complete keep it on
 * the session (`applyFulfillmentDetails`) and responses return it; delivery stays digital. On
 * complete see docs/acp.md "Accepted extensions" (ACP PR #200).
 */
export class FulfillmentDetailsDto {
  @ApiPropertyOptional() @Optional() @IsString() @MaxLength(256) name?: string;
  @ApiPropertyOptional({ example: '+919812345678' })
  @Optional()
  @IsString()
  @MaxLength(40)
  phone_number?: string;

  @ApiPropertyOptional({ format: 'email' })
  @Optional()
  @IsString()
  @IsEmail()
  @MaxLength(320)
  email?: string;

  @ApiPropertyOptional({ type: AddressDto })
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => AddressDto)
  address?: AddressDto;
}

/** The optional `fulfillment_details` object of create, update and complete. */
export const OptionalFulfillmentDetails = (description: string) =>
  applyDecorators(
    ApiPropertyOptional({ type: FulfillmentDetailsDto, description }),
    Optional(),
    IsObject(),
    ValidateNested(),
    Type(() => FulfillmentDetailsDto),
  );

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The nested selection of the ACP MCP example, `{type: "digital", digital: {option_id, item_ids}}`,
 * as the schema's flat `{type, option_id, item_ids}` (docs/acp.md "Accepted extensions"). Only an
 * element whose one other key is named after its `type` and holds an object is rewritten; anything
 * else is left as sent, so a mix of both shapes is refused as an unknown field.
 */
export function flattenSelection(v: unknown): unknown {
  if (!isPlainObject(v) || typeof v.type !== 'string') {
    return v;
  }
  const keys = Object.keys(v);
  const nested = v[v.type];
  if (keys.length !== 2 || !keys.includes(v.type) || v.type === 'type' || !isPlainObject(nested)) {
    return v;
  }
  return { ...nested, type: v.type };
}

const FLAT_SELECTION_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'option_id', 'item_ids'],
  properties: {
    type: { type: 'string', enum: [...FULFILLMENT_TYPES] },
    option_id: { type: 'string', example: 'fo_digital' },
    item_ids: {
      type: 'array',
      items: { type: 'string' },
      description: 'Line item ids (item ids are accepted too)',
    },
  },
};

const NESTED_SELECTION_SCHEMA = {
  type: 'object',
  description:
    "The ACP MCP example's shape: {type, <type>: {option_id, item_ids}}; read as the flat element",
  required: ['type'],
  minProperties: 2,
  maxProperties: 2,
  properties: { type: { type: 'string', enum: [...FULFILLMENT_TYPES] } },
  additionalProperties: {
    type: 'object',
    additionalProperties: false,
    required: ['option_id', 'item_ids'],
    properties: {
      option_id: { type: 'string' },
      item_ids: { type: 'array', items: { type: 'string' } },
    },
  },
};

/** `selected_fulfillment_options`: flat or nested elements, validated as the flat one. */
export const SelectedFulfillmentOptions = (description: string) =>
  applyDecorators(
    ApiPropertyOptional({
      type: 'array',
      description,
      items: { oneOf: [FLAT_SELECTION_SCHEMA, NESTED_SELECTION_SCHEMA] },
    }),
    Transform(({ obj, key }: { obj: Record<string, unknown>; key: string }) => {
      const raw = obj[key];
      return Array.isArray(raw)
        ? raw.map((e) => {
            const flat = flattenSelection(e);
            return isPlainObject(flat) ? plainToInstance(SelectedFulfillmentOptionDto, flat) : flat;
          })
        : raw;
    }),
    Optional(),
    IsArray(),
    EachObject(),
    ValidateNested({ each: true }),
  );

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
