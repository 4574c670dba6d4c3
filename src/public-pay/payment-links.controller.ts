import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { Auth, Caller } from '../common/auth/auth.decorators';
import type { AgentPrincipal } from '../common/auth/principal';
import { Idempotent } from '../common/idempotency/idempotent.decorator';
import type { Eventually } from '../database/tx';
import { CreatePaymentLinkDto } from './dto/payment-link.dto';
import { PaymentLinkResponse } from './dto/payment-link.response';
import { PaymentLinksService } from './payment-links.service';

const HOW_IT_SETTLES =
  "Paying the link settles the quote exactly like the hosted page: the gateway's webhook (payment.captured / order.paid on the link's order) runs the payment pipeline with the person paying as the approval (no mandate, no separate approval; the buyer's daily cap still applies), a signed receipt, the quote paid and intent.settled to the seller. " +
  'A link paid after the quote was paid another way or canceled never settles twice: it is recorded unmatched for a person to refund.';

/** Gateway payment links for quotes (docs/gateway.md "Payment links"), for the quote's seller agent. */
@ApiTags('payment-links')
@Controller('v1/pay/quotes/:id/payment-link')
@Auth('agent')
export class PaymentLinksController {
  constructor(private readonly links: PaymentLinksService) {}

  @Post()
  @HttpCode(200)
  @Idempotent()
  @ApiOperation({
    operationId: 'createQuotePaymentLink',
    summary: `Seller agent: a gateway payment link (plk_…) for an open, unexpired quote, for its exact amount and expiring when the quote does; the quote's live link when it has one (at most one per quote, so a retry or a second call returns the same link). 404 quote_not_found for anyone but the quote's seller; 409 payment_links_need_gateway on the sandbox rail (send pay_url instead); 409 quote_expired, quote_already_paid, quote_canceled, quote_pending_approval or quote_payment_in_progress when the quote cannot be paid; 409 payment_refused when the buyer's rules would refuse it now; 503 gateway_unavailable when the gateway does not answer (call again: same link); 409 payment_link_refused when the gateway refuses it. The body is closed (no fields): the amount and expiry are always the quote's. ${HOW_IT_SETTLES}`,
  })
  @ApiBody({ type: CreatePaymentLinkDto, required: false })
  @ApiOkResponse({ type: PaymentLinkResponse })
  create(
    @Caller() caller: AgentPrincipal,
    @Param('id') quoteId: string,
    @Body() _body: CreatePaymentLinkDto,
  ): Promise<Eventually<PaymentLinkResponse>> {
    // An AfterCommit answer is finished by the IdempotencyInterceptor after the gateway answered.
    return this.links.create(caller, quoteId);
  }

  @Get()
  @ApiOperation({
    operationId: 'getQuotePaymentLink',
    summary: `Seller agent: the quote's latest payment link and its state (with intent_id, payment_reference and receipt_id once paid). 404 quote_not_found for anyone but the quote's seller, payment_link_not_found when it has none. ${HOW_IT_SETTLES}`,
  })
  @ApiOkResponse({ type: PaymentLinkResponse })
  get(
    @Caller() caller: AgentPrincipal,
    @Param('id') quoteId: string,
  ): Promise<PaymentLinkResponse> {
    return this.links.get(caller, quoteId);
  }
}
