import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

export const OUTCOMES = ['success', 'failure'] as const;
export type CheckoutOutcome = (typeof OUTCOMES)[number];

/**
 * Start a hosted checkout: no fields. The body is closed (any field, e.g. an amount, is 400): the
 * amount is always the quote's, read by the server.
 */
export class StartCheckoutDto {}

/** What the gateway's widget hands the page after a payment (verified by the server). */
export interface GatewayPaymentFields {
  gateway_payment_id: string;
  gateway_order_id: string;
  gateway_signature: string;
}

const PAYMENT_ID = /^pay_[A-Za-z0-9]{14}$/;
const ORDER_ID = /^order_[A-Za-z0-9]{14}$/;
const SIGNATURE = /^[0-9a-f]{64}$/;

/**
 * Complete a hosted checkout. Sandbox rail: `{outcome}` only (the outcome the person simulates).
 * Gateway rail: the three fields the gateway's widget returns after a payment, and nothing else.
 * Closed: any other field is 400.
 */
export class CompleteCheckoutDto {
  @ApiPropertyOptional({
    enum: OUTCOMES,
    description:
      'Sandbox rail only (required there): success settles through the pipeline; failure records a failed attempt',
  })
  @IsOptional()
  @IsIn(OUTCOMES)
  outcome?: CheckoutOutcome;

  @ApiPropertyOptional({
    example: 'pay_29QQoUBi66xm2f',
    description: 'Gateway rail only (required there): the payment the widget reported',
  })
  @IsOptional()
  @Matches(PAYMENT_ID, { message: 'must be a gateway payment id (pay_ + 14 letters or digits)' })
  gateway_payment_id?: string;

  @ApiPropertyOptional({
    example: 'order_9A33XWu170gUtm',
    description: "Gateway rail only: the checkout's gateway order (must be the stored one)",
  })
  @IsOptional()
  @Matches(ORDER_ID, { message: 'must be a gateway order id (order_ + 14 letters or digits)' })
  gateway_order_id?: string;

  @ApiPropertyOptional({
    example: '9ef4dffbfd84f1318f6739a3ce19f9d85851857ae648f114332d8401e0949a3d',
    description:
      'Gateway rail only: hex HMAC-SHA256 of "<order_id>|<payment_id>" under the key secret, checked by the server',
  })
  @IsOptional()
  @Matches(SIGNATURE, { message: 'must be 64 lower-case hex characters' })
  gateway_signature?: string;
}

/**
 * What the gateway POSTs to {app_url}/pay/<quote_id>/return in redirect mode (urlencoded).
 * Checked like the widget's fields; anything else in the form is ignored.
 */
export class GatewayReturnFormDto {
  @IsString()
  @MaxLength(100)
  gateway_payment_id: string;

  @IsString()
  @MaxLength(100)
  gateway_order_id: string;

  @IsString()
  @MaxLength(200)
  gateway_signature: string;
}

/** The form of the sandbox panel on the hosted page (urlencoded). */
export class PayPageFormDto {
  @IsIn(OUTCOMES)
  outcome: CheckoutOutcome;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(100)
  checkout_id?: string;
}
