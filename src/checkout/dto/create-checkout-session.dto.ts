import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  Equals,
  IsArray,
  IsDefined,
  IsIn,
  IsObject,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';

import {
  AcceptedArray,
  AcceptedObject,
  BuyerDto,
  DiscountsDto,
  EachObject,
  FulfillmentDetailsDto,
  ItemDto,
  Optional,
  OptionalBuyer,
  OptionalFulfillmentDetails,
} from './checkout-request.parts';

export const MAX_LINE_ITEMS = 100;

/**
 * ACP `CheckoutSessionCreateRequest` (closed, docs/acp.md §4). `capabilities` is a plain object on
 * purpose: unknown capability values are ignored, never refused (docs/acp.md §4).
 * fulfillment_details is checked (closed ACP FulfillmentDetails) and kept on the session (returned;
 * delivery stays digital whatever the address); fulfillment_groups and affiliate_attribution are
 * accepted and ignored; discount
 * codes are answered with a warning per code. Items may carry `suggested_price` (docs/acp.md
 * "Accepted extensions").
 */
export class CreateCheckoutSessionDto {
  @ApiProperty({ type: [ItemDto], minItems: 1, maxItems: MAX_LINE_ITEMS })
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_LINE_ITEMS)
  @EachObject()
  @ValidateNested({ each: true })
  @Type(() => ItemDto)
  line_items: ItemDto[];

  @ApiProperty({ enum: ['inr'], description: 'Lowercase ISO 4217; only inr' })
  @IsDefined()
  @IsString()
  @IsIn(['inr'], { message: 'must be inr (lowercase); we settle only Indian rupees' })
  currency: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'ACP Capabilities; {} is valid',
  })
  @IsDefined()
  @IsObject()
  capabilities: Record<string, unknown>;

  @OptionalBuyer()
  buyer?: BuyerDto;

  @OptionalFulfillmentDetails(
    'Kept on the session and returned; delivery is digital whatever the address (docs/acp.md §4)',
  )
  fulfillment_details?: FulfillmentDetailsDto;

  @AcceptedArray('Accepted, ignored (one digital option)')
  fulfillment_groups?: unknown[];

  @AcceptedObject('Accepted, ignored')
  affiliate_attribution?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: [String],
    deprecated: true,
    description: 'We have no discount codes: each gets a warning',
  })
  @Optional()
  @IsArray()
  @IsString({ each: true })
  coupons?: string[];

  @ApiPropertyOptional({
    type: DiscountsDto,
    description: 'We have no discount codes: each gets a warning',
  })
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => DiscountsDto)
  discounts?: DiscountsDto;

  @ApiPropertyOptional({ description: 'Accepted; we answer in en-IN' })
  @Optional()
  @IsString()
  @MaxLength(35)
  locale?: string;

  @ApiPropertyOptional({ description: 'Accepted; we answer in Asia/Kolkata' })
  @Optional()
  @IsString()
  @MaxLength(64)
  timezone?: string;

  // Quotes cannot back a session yet; silently ignoring quote_id would price differently than asked.
  @Equals(undefined, { message: 'quote_id is not supported on checkout sessions yet' })
  quote_id?: string;

  @AcceptedObject('Accepted, not stored')
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({ maxLength: 5000, description: 'Accepted, not stored' })
  @Optional()
  @IsString()
  @MaxLength(5000)
  order_notes?: string;
}
