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
  BuyerDto,
  DiscountsDto,
  EachObject,
  FulfillmentDetailsDto,
  ItemDto,
  Optional,
  OptionalBuyer,
  OptionalFulfillmentDetails,
  SelectedFulfillmentOptionDto,
  SelectedFulfillmentOptions,
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

  @OptionalFulfillmentDetails(
    'Kept on the session and returned: each field sent replaces the one held, a field not sent is kept (docs/acp.md §4)',
  )
  fulfillment_details?: FulfillmentDetailsDto;

  @AcceptedArray('Accepted, ignored')
  fulfillment_groups?: unknown[];

  @SelectedFulfillmentOptions(
    'Only fo_digital exists; it is always selected. Also accepted: the nested element {type, <type>: {option_id, item_ids}} of the ACP MCP example (docs/acp.md "Accepted extensions")',
  )
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
