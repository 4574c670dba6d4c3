import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsISO8601,
  IsObject,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';

import {
  AcceptedObject,
  AddressDto,
  BuyerDto,
  EachObject,
  FulfillmentDetailsDto,
  MarketingConsentDto,
  Optional,
  OptionalBuyer,
  OptionalFulfillmentDetails,
  RiskSignalsDto,
} from './checkout-request.parts';

/**
 * ACP `PaymentData` (closed). `instrument` is an open object in the schema, so it is checked by
 * hand (parsePaymentData) rather than by a closed DTO.
 */
export class PaymentDataDto {
  @ApiPropertyOptional({ example: 'svc_upi_mandate' })
  @Optional()
  @IsString()
  handler_id?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'For svc_upi_mandate: {type: svc_mandate, credential: {type, token}} (/acp/handlers/upi_mandate/instrument.schema.json)',
    properties: {
      type: { type: 'string', example: 'svc_mandate' },
      credential: {
        type: 'object',
        additionalProperties: true,
        required: ['type', 'token'],
        properties: {
          type: { type: 'string', enum: ['svc_delegated_token', 'spt'] },
          token: { type: 'string', pattern: '^vt_[A-Za-z0-9]+$' },
        },
      },
    },
    example: {
      type: 'svc_mandate',
      credential: { type: 'svc_delegated_token', token: 'vt_01HXYZ' },
    },
  })
  @Optional()
  @IsObject()
  instrument?: Record<string, unknown>;

  @ApiPropertyOptional({ type: AddressDto })
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => AddressDto)
  billing_address?: AddressDto;

  @ApiPropertyOptional({ description: 'B2B terms: refused with 400 unsupported' })
  @Optional()
  @IsString()
  purchase_order_number?: string;

  @ApiPropertyOptional({ enum: ['immediate', 'net_15', 'net_30', 'net_60', 'net_90'] })
  @Optional()
  @IsIn(['immediate', 'net_15', 'net_30', 'net_60', 'net_90'])
  payment_terms?: string;

  @ApiPropertyOptional()
  @Optional()
  @IsISO8601()
  due_date?: string;

  @ApiPropertyOptional()
  @Optional()
  @IsBoolean()
  approval_required?: boolean;
}

/** ACP `CheckoutSessionCompleteRequest` (closed, docs/acp.md §5). */
export class CompleteCheckoutSessionDto {
  @ApiProperty({ type: PaymentDataDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => PaymentDataDto)
  payment_data: PaymentDataDto;

  @OptionalBuyer()
  buyer?: BuyerDto;

  @AcceptedObject('Accepted, ignored (we never ask for 3DS)')
  authentication_result?: Record<string, unknown>;

  @AcceptedObject('Accepted, ignored')
  affiliate_attribution?: Record<string, unknown>;

  @ApiPropertyOptional({ type: RiskSignalsDto })
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => RiskSignalsDto)
  risk_signals?: RiskSignalsDto;

  @ApiPropertyOptional({
    type: [MarketingConsentDto],
    description: 'Accepted, ignored (we offer no marketing)',
  })
  @Optional()
  @IsArray()
  @EachObject()
  @ValidateNested({ each: true })
  @Type(() => MarketingConsentDto)
  marketing_consents?: MarketingConsentDto[];

  @ApiPropertyOptional({ maxLength: 5000 })
  @Optional()
  @IsString()
  @MaxLength(5000)
  order_notes?: string;

  @OptionalFulfillmentDetails(
    'Accepted extension (ACP PR #200), checked and applied like update\'s. When the session holds an address, another one is 409 fulfillment_price_changed and nothing changes; an equal address (case and spacing aside) or contact details alone proceed and are kept (docs/acp.md "Accepted extensions")',
  )
  fulfillment_details?: FulfillmentDetailsDto;
}
