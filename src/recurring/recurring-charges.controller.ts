import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { Auth, Caller } from '../common/auth/auth.decorators';
import { Idempotent } from '../common/idempotency/idempotent.decorator';
import type { Page } from '../common/pagination';
import { ApiPageResponse } from '../openapi/page.decorator';
import { ChargeResponse, CreateChargeDto, ListChargesQuery } from './dto/charge.dto';
import { ChargeCaller, RecurringChargesService } from './recurring-charges.service';

/** Charges on recurring (UPI AutoPay) mandates: docs/recurring.md "Recurring payments (UPI AutoPay)". */
@ApiTags('recurring')
@Controller('v1/pay/mandates/:mandateId/charges')
@Auth('api_key', 'agent')
export class RecurringChargesController {
  constructor(private readonly charges: RecurringChargesService) {}

  @Post()
  @Idempotent()
  @ApiOperation({
    operationId: 'scheduleCharge',
    summary:
      'A seller on the mandate schedules a debit: the pre-debit notice goes out now, the debit ≥ 24 h later outside the blocked windows, one per billing cycle',
  })
  @ApiCreatedResponse({ type: ChargeResponse })
  create(
    @Caller() caller: ChargeCaller,
    @Param('mandateId') mandateId: string,
    @Body() body: CreateChargeDto,
  ): Promise<ChargeResponse> {
    return this.charges.schedule(caller, mandateId, {
      amountPaise: body.amount_paise,
      description: body.description,
      reason: body.reason,
      debitAfter: body.debit_after ? new Date(body.debit_after) : undefined,
    });
  }

  @Get()
  @ApiOperation({
    operationId: 'listCharges',
    summary: "The mandate's charges the caller may see (buyer: all; seller: its own), newest first",
  })
  @ApiPageResponse(ChargeResponse)
  list(
    @Caller() caller: ChargeCaller,
    @Param('mandateId') mandateId: string,
    @Query() q: ListChargesQuery,
  ): Promise<Page<ChargeResponse>> {
    return this.charges.list(caller, mandateId, {
      limit: q.limit,
      startingAfter: q.starting_after,
    });
  }

  @Get(':chargeId')
  @ApiOperation({ operationId: 'getCharge', summary: 'One charge, with its schedule and outcome' })
  @ApiOkResponse({ type: ChargeResponse })
  get(
    @Caller() caller: ChargeCaller,
    @Param('mandateId') mandateId: string,
    @Param('chargeId') chargeId: string,
  ): Promise<ChargeResponse> {
    return this.charges.get(caller, mandateId, chargeId);
  }

  @Post(':chargeId/cancel')
  @HttpCode(200)
  @Idempotent()
  @ApiOperation({
    operationId: 'cancelCharge',
    summary:
      'Cancel a charge before its debit (the buyer side or its seller); nothing is debited. The person opting out uses opt-out',
  })
  @ApiOkResponse({ type: ChargeResponse })
  cancel(
    @Caller() caller: ChargeCaller,
    @Param('mandateId') mandateId: string,
    @Param('chargeId') chargeId: string,
  ): Promise<ChargeResponse> {
    return this.charges.cancelByCaller(caller, mandateId, chargeId);
  }

  @Post(':chargeId/opt-out')
  @HttpCode(200)
  @Idempotent()
  @ApiOperation({
    operationId: 'optOutOfCharge',
    summary:
      "The person opts out of this one debit, through the buyer's side (its agent or API key): nothing is debited for it, the mandate stays active",
  })
  @ApiOkResponse({ type: ChargeResponse })
  optOut(
    @Caller() caller: ChargeCaller,
    @Param('mandateId') mandateId: string,
    @Param('chargeId') chargeId: string,
  ): Promise<ChargeResponse> {
    return this.charges.optOutByCaller(caller, mandateId, chargeId);
  }
}
