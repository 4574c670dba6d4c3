import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
  ValidationArguments,
} from 'class-validator';

export const SKU_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
/** Dotted lowercase path: `food`, `food.tea`, `food.tea.green`. */
export const CATEGORY_PATTERN = /^[a-z0-9_]+(\.[a-z0-9_]+)*$/;
export const MAX_UNIT_PAISE = 1_000_000_000_000;
export const MAX_OFFERS = 500;

export class OfferDto {
  @ApiProperty({
    pattern: SKU_PATTERN.source,
    example: 'sku_tea_1kg',
    description: 'Unique within the seller; the ACP line item id',
  })
  @IsDefined()
  @IsString()
  @Matches(SKU_PATTERN, { message: `must match ${SKU_PATTERN.source}` })
  sku: string;

  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Assam tea 1 kg' })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name: string;

  @ApiProperty({
    minimum: 1,
    maximum: MAX_UNIT_PAISE,
    example: 45000,
    description: 'Price per unit in paise',
  })
  @IsDefined()
  @IsInt()
  @Min(1)
  @Max(MAX_UNIT_PAISE)
  unit_paise: number;

  @ApiProperty({ pattern: CATEGORY_PATTERN.source, maxLength: 100, example: 'food.tea' })
  @IsDefined()
  @IsString()
  @MaxLength(100)
  @Matches(CATEGORY_PATTERN, { message: 'must be a dotted lowercase category such as food.tea' })
  category: string;
}

function firstNonObject(value: unknown): string {
  const items = Array.isArray(value) ? (value as unknown[]) : [];
  const i = items.findIndex((v) => v === null || typeof v !== 'object' || Array.isArray(v));
  return `element ${i} must be a JSON object (an offer)`;
}

export class PutListingDto {
  @ApiProperty({ description: 'Whether the seller appears in GET /v1/pay/sellers' })
  @IsDefined()
  @IsBoolean()
  listed: boolean;

  @ApiProperty({
    type: [OfferDto],
    maxItems: MAX_OFFERS,
    description:
      'The complete offer list: offers not in it are withdrawn (kept, inactive, for history)',
  })
  @IsDefined()
  @IsArray()
  @ArrayMaxSize(MAX_OFFERS)
  // ValidateNested alone descends into a nested array (`offers: [[{…}]]` or `[[]]`) and validates
  // its elements, so an array element passed as an "offer" without sku or unit_paise and reached
  // Postgres as unit_paise "undefined" (500 "bigint: undefined"). Each offer must be an object.
  @IsObject({ each: true, message: (args: ValidationArguments) => firstNonObject(args.value) })
  @ValidateNested({ each: true })
  @Type(() => OfferDto)
  offers: OfferDto[];
}
