import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';

export const OUTCOMES = ['success', 'failure'] as const;
export type CheckoutOutcome = (typeof OUTCOMES)[number];

/**
 * Start a hosted checkout: no fields. The body is closed (any field, e.g. an amount, is 400): the
 * amount is always the quote's, read by the server.
 */
export class StartCheckoutDto {}

/** Sandbox rail: the outcome the person simulates. Closed: any other field is 400. */
export class CompleteCheckoutDto {
  @ApiProperty({
    enum: OUTCOMES,
    description:
      'Sandbox rail: success settles through the pipeline; failure records a failed attempt',
  })
  @IsIn(OUTCOMES)
  outcome: CheckoutOutcome;
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
