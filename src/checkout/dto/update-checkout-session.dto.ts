import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
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
  ItemDto,
  Optional,
  OptionalBuyer,
  SelectedFulfillmentOptionDto,
} from './checkout-request.parts';
import { MAX_LINE_ITEMS } from './create-checkout-session.dto';

/** ACP `CheckoutSessionUpdateRequest` (closed, docs/acp.md §4): absent keys leave fields unchanged; null is refused. */
export class UpdateCheckoutSessionDto {
  @OptionalBuyer()
  buyer?: BuyerDto;

  @ApiPropertyOptional({
    type: [ItemDto],
    minItems: 1,
    maxItems: MAX_LINE_ITEMS,
    description: 'Replaces the line items',
  })
  @Optional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_LINE_ITEMS)
  @EachObject()
  @ValidateNested({ each: true })
  @Type(() => ItemDto)
  line_items?: ItemDto[];

  @AcceptedObject('Accepted, ignored (digital delivery)')
  fulfillment_details?: Record<string, unknown>;

  @AcceptedArray('Accepted, ignored')
  fulfillment_groups?: unknown[];

  @ApiPropertyOptional({
    type: [SelectedFulfillmentOptionDto],
    description: 'Only fo_digital exists; it is always selected',
  })
  @Optional()
  @IsArray()
  @EachObject()
  @ValidateNested({ each: true })
  @Type(() => SelectedFulfillmentOptionDto)
  selected_fulfillment_options?: SelectedFulfillmentOptionDto[];

  @ApiPropertyOptional({ type: [String], deprecated: true })
  @Optional()
  @IsArray()
  @IsString({ each: true })
  coupons?: string[];

  @ApiPropertyOptional({ type: DiscountsDto })
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => DiscountsDto)
  discounts?: DiscountsDto;

  @ApiPropertyOptional({ maxLength: 5000 })
  @Optional()
  @IsString()
  @MaxLength(5000)
  order_notes?: string;
}
