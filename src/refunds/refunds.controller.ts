import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { Auth, Caller } from '../common/auth/auth.decorators';
import type { AgentPrincipal } from '../common/auth/principal';
import { Idempotent } from '../common/idempotency/idempotent.decorator';
import { Page, PageQuery } from '../common/pagination';
import { CreateRefundDto } from './dto/create-refund.dto';
import { RefundListResponse, RefundResponse } from './dto/refund.response';
import { RefundsService } from './refunds.service';

/** No route here (or anywhere under /v1) approves a refund: only a person in the app does. */
@ApiTags('refunds')
@Controller('v1/pay')
@Auth('agent')
export class RefundsController {
  constructor(private readonly refunds: RefundsService) {}

  @Post('intents/:id/refunds')
  @Idempotent()
  @ApiOperation({
    operationId: 'requestRefund',
    summary:
      'Seller agent: ask a full (default) or partial refund of a settled payment; it waits for a person in the seller workspace to approve',
    description:
      "The rail's refund limits are checked first, before anything is stored or a person is asked (the intent shows them: refundable_paise, refund_minimum_paise, refund_maximum_paise, not_refundable_reason): 400 refund_below_minimum (below the rail's smallest refund: ₹1.00 on the payment gateway by default), refund_above_maximum, partial_refund_not_allowed, or refund_exceeds_amount (more than is left; pending refunds count), each with the limit in rupees and param $.amount_paise.",
  })
  @ApiCreatedResponse({ type: RefundResponse })
  create(
    @Caller() caller: AgentPrincipal,
    @Param('id') intentId: string,
    @Body() body: CreateRefundDto,
  ): Promise<RefundResponse> {
    return this.refunds.requestRefund(caller, intentId, {
      amountPaise: body.amount_paise,
      reason: body.reason,
    });
  }

  @Get('intents/:id/refunds')
  @ApiOperation({
    operationId: 'listRefunds',
    summary: 'Refunds of a payment, newest first, for either party',
  })
  @ApiOkResponse({ type: RefundListResponse })
  list(
    @Caller() caller: AgentPrincipal,
    @Param('id') intentId: string,
    @Query() q: PageQuery,
  ): Promise<Page<RefundResponse>> {
    return this.refunds.listForParty(caller.id, intentId, q.limit, q.starting_after);
  }

  @Get('refunds/:id')
  @ApiOperation({
    operationId: 'getRefund',
    summary: 'One refund, for either party of its payment',
  })
  @ApiOkResponse({ type: RefundResponse })
  get(@Caller() caller: AgentPrincipal, @Param('id') id: string): Promise<RefundResponse> {
    return this.refunds.getForParty(caller.id, id);
  }
}
