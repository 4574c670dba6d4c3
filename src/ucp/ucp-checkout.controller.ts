import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';

import { CheckoutService } from '../checkout/checkout.service';
import { CheckoutCompletionService } from '../checkout/checkout-completion.service';
import type { AcpCheckoutSession } from '../checkout/dto/checkout-session.response';
import { Caller } from '../common/auth/auth.decorators';
import type { ProtocolKeyPrincipal } from '../common/auth/principal';
import { KeyAnswer, KeyAnswerStore } from '../common/idempotency/key-answer';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { AfterCommit, Eventually } from '../database/tx';
import type { AnswerStore } from '../payments/payment-attempt';
import { NegotiatedUcp, UcpRoute } from './ucp.guards';
import { checkoutEnvelope, toUcpCheckout, UcpCheckout } from './ucp-checkout.mapper';
import { parseUcpComplete, parseUcpCreate, parseUcpUpdate } from './ucp-checkout-input';
import { unavailableItemsAsOutcome } from './ucp-errors';
import type { Negotiated } from './ucp-negotiation';
import { UCP_CHECKOUT, UcpResponses, UcpWrite } from './ucp-openapi';

const UCP_BODY = {
  schema: {
    type: 'object',
    additionalProperties: true,
    description: 'UCP 2026-04-08 schemas/shopping/checkout.json request (docs/ucp.md)',
  },
} as const;

/**
 * The UCP checkout REST binding (docs/ucp.md "Checkout") over the ACP checkout sessions: each
 * route turns its UCP body into the ACP request, calls the same CheckoutService /
 * CheckoutCompletionService method the ACP route calls, and answers in UCP's shape.
 */
@ApiTags('ucp')
@Controller('ucp/checkout-sessions')
@UcpRoute()
export class UcpCheckoutController {
  constructor(
    private readonly checkout: CheckoutService,
    private readonly completion: CheckoutCompletionService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private presenter(caller: ProtocolKeyPrincipal, negotiated: Negotiated) {
    const envelope = checkoutEnvelope(this.config, negotiated, caller.agentId);
    return (acp: AcpCheckoutSession): UcpCheckout => toUcpCheckout(acp, envelope);
  }

  @Post()
  @UcpWrite()
  @ApiOperation({ operationId: 'ucpCreateCheckout', summary: 'UCP: create a checkout session' })
  @ApiBody(UCP_BODY)
  @UcpResponses(201, UCP_CHECKOUT, { notFound: false, write: true })
  async create(
    @Caller() caller: ProtocolKeyPrincipal,
    @NegotiatedUcp() negotiated: Negotiated,
    @Body() body: unknown,
  ): Promise<UcpCheckout> {
    const request = parseUcpCreate(body);
    const created = await unavailableItemsAsOutcome(() =>
      this.checkout.createSession(caller, request),
    );
    return this.presenter(caller, negotiated)(created);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'ucpGetCheckout', summary: 'UCP: the current checkout session' })
  @UcpResponses(200, UCP_CHECKOUT, { notFound: true, write: false })
  async get(
    @Caller() caller: ProtocolKeyPrincipal,
    @NegotiatedUcp() negotiated: Negotiated,
    @Param('id') id: string,
  ): Promise<UcpCheckout> {
    return this.presenter(caller, negotiated)(await this.checkout.getSession(caller, id));
  }

  @Put(':id')
  @UcpWrite()
  @ApiOperation({
    operationId: 'ucpUpdateCheckout',
    summary: 'UCP: replace the line items (and buyer); re-prices',
  })
  @ApiBody(UCP_BODY)
  @UcpResponses(200, UCP_CHECKOUT, { notFound: true, write: true })
  async update(
    @Caller() caller: ProtocolKeyPrincipal,
    @NegotiatedUcp() negotiated: Negotiated,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<UcpCheckout> {
    const request = parseUcpUpdate(body, id);
    return this.presenter(
      caller,
      negotiated,
    )(await this.checkout.updateSession(caller, id, request));
  }

  @Post(':id/complete')
  @HttpCode(200)
  @UcpWrite()
  @ApiOperation({
    operationId: 'ucpCompleteCheckout',
    summary:
      'UCP: pay with a svc_upi_mandate instrument (delegated token): completed (≤ ₹2,000), complete_in_progress while a person approves (above) or the rail answers',
  })
  @ApiBody(UCP_BODY)
  @UcpResponses(200, UCP_CHECKOUT, { notFound: true, write: true })
  async complete(
    @Caller() caller: ProtocolKeyPrincipal,
    @NegotiatedUcp() negotiated: Negotiated,
    @Param('id') id: string,
    @Body() body: unknown,
    @KeyAnswer() keyAnswer: KeyAnswerStore | null,
  ): Promise<Eventually<UcpCheckout>> {
    const request = parseUcpComplete(body);
    const present = this.presenter(caller, negotiated);
    // An answer the payment's second transaction makes final is stored on the key in UCP's shape.
    const store: AnswerStore | null = keyAnswer
      ? {
          storeWithin: (answer) => keyAnswer.storeWithin(present(answer as AcpCheckoutSession)),
          payment: keyAnswer.payment,
        }
      : null;
    const outcome = await this.completion.completeSession(caller, id, request, store);
    return outcome instanceof AfterCommit
      ? new AfterCommit(async () => present(await outcome.finish()))
      : present(outcome);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @UcpWrite()
  @ApiOperation({ operationId: 'ucpCancelCheckout', summary: 'UCP: cancel a checkout session' })
  @ApiBody({ ...UCP_BODY, required: false })
  @UcpResponses(200, UCP_CHECKOUT, { notFound: true, write: true })
  async cancel(
    @Caller() caller: ProtocolKeyPrincipal,
    @NegotiatedUcp() negotiated: Negotiated,
    @Param('id') id: string,
  ): Promise<UcpCheckout> {
    // UCP's cancel body carries nothing we keep: no intent trace is stored.
    return this.presenter(caller, negotiated)(await this.checkout.cancelSession(caller, id, {}));
  }
}
