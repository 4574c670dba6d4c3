import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { AcpRoute, Caller } from '../common/auth/auth.decorators';
import type { ProtocolKeyPrincipal } from '../common/auth/principal';
import { Idempotent } from '../common/idempotency/idempotent.decorator';
import { KeyAnswer, KeyAnswerStore } from '../common/idempotency/key-answer';
import { Eventually } from '../database/tx';
import { CheckoutService } from './checkout.service';
import { CheckoutCompletionService } from './checkout-completion.service';
import { AcpCheckoutSession } from './dto/checkout-session.response';
import { CompleteCheckoutSessionDto } from './dto/complete-checkout-session.dto';
import { CreateCheckoutSessionDto } from './dto/create-checkout-session.dto';
import { UpdateCheckoutSessionDto } from './dto/update-checkout-session.dto';

/** ACP 2026-04-17 merchant checkout (docs/acp.md §4–§5), for a seller agent's merchant protocol key. */
@ApiTags('acp-checkout')
@Controller('acp/checkout_sessions')
@AcpRoute('merchant')
export class CheckoutController {
  constructor(
    private readonly checkout: CheckoutService,
    private readonly completion: CheckoutCompletionService,
  ) {}

  @Post()
  @Idempotent({ pipelined: true })
  @ApiOperation({
    operationId: 'createCheckoutSession',
    summary: 'Create a checkout session from published offers',
  })
  @ApiCreatedResponse({ type: AcpCheckoutSession })
  create(
    @Caller() caller: ProtocolKeyPrincipal,
    @Body() body: CreateCheckoutSessionDto,
  ): Promise<AcpCheckoutSession> {
    return this.checkout.createSession(caller, body);
  }

  @Post(':checkout_session_id')
  @HttpCode(200)
  @Idempotent()
  @ApiOperation({
    operationId: 'updateCheckoutSession',
    summary: 'Update items, buyer or fulfilment selection (re-prices)',
  })
  @ApiOkResponse({ type: AcpCheckoutSession })
  update(
    @Caller() caller: ProtocolKeyPrincipal,
    @Param('checkout_session_id') id: string,
    @Body() body: UpdateCheckoutSessionDto,
  ): Promise<AcpCheckoutSession> {
    return this.checkout.updateSession(caller, id, body);
  }

  @Get(':checkout_session_id')
  @ApiOperation({ operationId: 'getCheckoutSession', summary: 'The full, current session' })
  @ApiOkResponse({ type: AcpCheckoutSession })
  get(
    @Caller() caller: ProtocolKeyPrincipal,
    @Param('checkout_session_id') id: string,
  ): Promise<AcpCheckoutSession> {
    return this.checkout.getSession(caller, id);
  }

  @Post(':checkout_session_id/complete')
  @HttpCode(200)
  @Idempotent({ pipelined: true })
  @ApiOperation({
    operationId: 'completeCheckoutSession',
    summary:
      'Pay with a delegated token: completed (≤ ₹2,000), pending_approval (above), or ready_for_payment + payment_declined; complete_in_progress when the rail has not answered yet (retrieve the session for the outcome)',
  })
  @ApiOkResponse({ type: AcpCheckoutSession })
  complete(
    @Caller() caller: ProtocolKeyPrincipal,
    @Param('checkout_session_id') id: string,
    @Body() body: CompleteCheckoutSessionDto,
    @KeyAnswer() keyAnswer: KeyAnswerStore | null,
  ): Promise<Eventually<AcpCheckoutSession>> {
    // An AfterCommit answer is finished by the IdempotencyInterceptor once the payment's first
    // transaction has committed and the rail has answered (docs/architecture.md "Transactions");
    // the payment's second transaction stores it on the key (keyAnswer).
    return this.completion.completeSession(caller, id, body, keyAnswer);
  }

  @Post(':checkout_session_id/cancel')
  @HttpCode(200)
  @Idempotent()
  @ApiOperation({
    operationId: 'cancelCheckoutSession',
    summary: 'Cancel (empty body or {intent_trace}); 405 once completed or canceled',
  })
  @ApiBody({
    required: false,
    schema: {
      type: 'object',
      properties: {
        intent_trace: {
          type: 'object',
          properties: {
            reason_code: { type: 'string', description: 'Unknown values are stored as other' },
            trace_summary: { type: 'string', maxLength: 500 },
            metadata: {
              type: 'object',
              additionalProperties: {
                oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }],
              },
            },
          },
          required: ['reason_code'],
        },
      },
    },
  })
  @ApiOkResponse({ type: AcpCheckoutSession })
  cancel(
    @Caller() caller: ProtocolKeyPrincipal,
    @Param('checkout_session_id') id: string,
    // Open body, checked by parseCancelBody: a typed DTO would refuse the unknown keys ACP allows here.
    @Body() body: unknown,
  ): Promise<AcpCheckoutSession> {
    return this.checkout.cancelSession(caller, id, body);
  }
}
