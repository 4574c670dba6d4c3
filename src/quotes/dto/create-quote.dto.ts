import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';

import { FREE_FORM_QUOTE_TTL } from '../quote.state';

/** Dotted lower-case category, e.g. `food.beverages`: the same rule as offer categories (listings). */
export const CATEGORY_PATTERN = /^[a-z0-9_]+(\.[a-z0-9_]+)*$/;
/** ₹1,000 crore per unit: the same ceiling as a published offer's unit_paise. */
export const MAX_UNIT_PAISE = 1_000_000_000_000;

export class CreateQuoteFromOfferDto {
  @ApiProperty({
    description: "SKU of one of the seller's published offers",
    example: 'chai-250g',
    maxLength: 100,
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  sku: string;
}

export class QuoteItemDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Masala chai, 250 g' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name: string;

  @ApiProperty({
    description: 'Price of one unit in paise (integer > 0)',
    minimum: 1,
    maximum: MAX_UNIT_PAISE,
    example: 45000,
  })
  @IsInt()
  @Min(1)
  @Max(MAX_UNIT_PAISE)
  unit_paise: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 10000, default: 1 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(10000)
  quantity?: number;
}

export class CreateQuoteDto {
  @ApiProperty({ description: 'The one buyer agent the quote is addressed to', example: 'agt_…' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  buyer_agent_id: string;

  @ApiProperty({ description: 'Dotted category', example: 'services.consulting', maxLength: 100 })
  @IsString()
  @MaxLength(100)
  @Matches(CATEGORY_PATTERN, {
    message: 'category must be dotted lower-case words, e.g. food.beverages',
  })
  category: string;

  @ApiProperty({ type: [QuoteItemDto], minItems: 1, maxItems: 50 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => QuoteItemDto)
  items: QuoteItemDto[];

  @ApiPropertyOptional({
    minimum: FREE_FORM_QUOTE_TTL.min,
    maximum: FREE_FORM_QUOTE_TTL.max,
    default: FREE_FORM_QUOTE_TTL.default,
  })
  @IsOptional()
  @IsInt()
  @Min(FREE_FORM_QUOTE_TTL.min)
  @Max(FREE_FORM_QUOTE_TTL.max)
  expires_in_seconds?: number;
}

export class PayQuoteDto {
  @ApiProperty({
    description: 'An active UPI mandate of the calling buyer agent',
    example: 'mdt_…',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  mandate_id: string;
}
