import { Body, Controller, Get, HttpCode, Param, Post, UseInterceptors } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { Idempotent } from '../common/idempotency/idempotent.decorator';
import type { Eventually } from '../database/tx';
import { CompleteCheckoutDto, StartCheckoutDto } from './dto/public-pay.dto';
import { HostedCheckoutResponse, PublicPayView } from './dto/public-pay.response';
import { PayPageHeadersInterceptor } from './pay-page-headers.interceptor';
import { PublicPayService } from './public-pay.service';

const STATE_MACHINE =
  'Hosted checkout states: start → created (one live checkout per quote; starting again returns it). ' +
  'created → processing when complete is called (attempts + 1; on the sandbox rail the attempt ends in the same request). ' +
  'processing → paid (outcome success and the pipeline settles: signed receipt, quote paid, intent.settled to the seller) or ' +
  "failed (outcome failure, or the buyer's rules or the rail refuse; failure_reason says why). " +
  'created → expired after 30 minutes (never after the quote expires) or when the quote is paid, canceled or expires by another path. ' +
  'processing never expires. paid, failed and expired are final; paid never moves again. After failed or expired, start again for a new checkout.';

/**
 * The public pay API (spec §4 "Public pay API", §5 rule 5): no credential, the unguessable quote
 * id is the capability; every route is limited per client address by the global public rate
 * limit. Unknown, malformed and someone else's ids all get the same 404 body.
 */
@ApiTags('public-pay')
@Controller('v1/public/pay/quotes/:quote_id')
// The URL is the capability: no caches, no Referer, no framing (same headers as the pages).
@UseInterceptors(PayPageHeadersInterceptor)
export class PublicPayController {
  constructor(private readonly pay: PublicPayService) {}

  @Get()
  @ApiOperation({
    operationId: 'getPublicQuote',
    summary:
      'The public quote view for the hosted payment page: the quote with seller_name, rail, mode, payable and (when not payable) the reason in words, and the latest checkout. No credential.',
  })
  @ApiOkResponse({ type: PublicPayView })
  view(@Param('quote_id') quoteId: string): Promise<PublicPayView> {
    return this.pay.getView(quoteId);
  }

  @Post('checkout')
  @HttpCode(200)
  @Idempotent()
  @ApiOperation({
    operationId: 'startHostedCheckout',
    summary: `Starts a hosted checkout (hco_…) for the quote, or returns the live one. On the gateway rail the answer also carries key_id, order_id, amount, currency, name, description and callback_url for the gateway's widget (503 gateway_unavailable if the gateway order cannot be opened; start again). 409 with the reason when the quote is not payable. The body is closed (no fields). ${STATE_MACHINE}`,
  })
  @ApiBody({ type: StartCheckoutDto, required: false })
  @ApiOkResponse({ type: HostedCheckoutResponse })
  start(
    @Param('quote_id') quoteId: string,
    @Body() _body: StartCheckoutDto,
  ): Promise<Eventually<HostedCheckoutResponse>> {
    return this.pay.startCheckout(quoteId);
  }

  @Post('checkout/:checkout_id/complete')
  @HttpCode(200)
  @Idempotent()
  @ApiOperation({
    operationId: 'completeHostedCheckout',
    summary: `Gateway rail: {gateway_payment_id, gateway_order_id, gateway_signature} from the gateway's widget; the signature must be HMAC-SHA256(order_id|payment_id) under the key secret for the checkout's stored order (else 400 invalid_payment_signature, nothing recorded), the payment is fetched from the gateway and must be captured for this order and amount (else 409 payment_not_captured), then it settles through the pipeline; a failed attempt stays on the same order. Sandbox rail: {outcome: success|failure}. Success pays the quote through the payment pipeline (the person on the page is the approval: no mandate, no separate approval; the buyer's daily cap still applies); failure records a failed attempt. The body is closed: any other field (an amount, another quote) is 400; the amount is always the quote's. Completing a paid checkout with success again returns it unchanged. ${STATE_MACHINE}`,
  })
  @ApiOkResponse({ type: HostedCheckoutResponse })
  complete(
    @Param('quote_id') quoteId: string,
    @Param('checkout_id') checkoutId: string,
    @Body() body: CompleteCheckoutDto,
  ): Promise<Eventually<HostedCheckoutResponse>> {
    // An AfterCommit answer is finished by the IdempotencyInterceptor after the rail answered.
    return this.pay.complete(quoteId, checkoutId, body);
  }

  @Get('checkout/:checkout_id')
  @ApiOperation({
    operationId: 'getHostedCheckout',
    summary: `The checkout's state (with intent_id, payment_reference and receipt_id once paid). A checkout of another quote is 404. ${STATE_MACHINE}`,
  })
  @ApiOkResponse({ type: HostedCheckoutResponse })
  checkout(
    @Param('quote_id') quoteId: string,
    @Param('checkout_id') checkoutId: string,
  ): Promise<HostedCheckoutResponse> {
    return this.pay.getCheckout(quoteId, checkoutId);
  }
}
