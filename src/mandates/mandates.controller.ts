import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { Auth, Caller } from '../common/auth/auth.decorators';
import { Idempotent } from '../common/idempotency/idempotent.decorator';
import type { Page } from '../common/pagination';
import { ApiPageResponse } from '../openapi/page.decorator';
import { CreateMandateDto } from './dto/create-mandate.dto';
import { ListMandatesQuery } from './dto/list-mandates.query';
import { MandateResponse } from './dto/mandate.response';
import { MandateCaller, MandatesService } from './mandates.service';

@ApiTags('mandates')
@Controller('v1/pay/mandates')
@Auth('api_key', 'agent')
export class MandatesController {
  constructor(private readonly mandates: MandatesService) {}

  @Post()
  @Idempotent()
  @ApiOperation({
    operationId: 'createMandate',
    summary:
      'Create a UPI mandate for a buyer agent; a person of the workspace authorises it at authorization_url',
  })
  @ApiCreatedResponse({ type: MandateResponse })
  create(
    @Caller() caller: MandateCaller,
    @Body() body: CreateMandateDto,
  ): Promise<MandateResponse> {
    return this.mandates.create(caller, {
      buyerAgentId: body.buyer_agent_id,
      perPaymentCapPaise: body.per_payment_cap_paise,
      payeeAgentIds: body.payee_agent_ids,
      validFrom: body.valid_from,
      validUntil: body.valid_until,
      rail: body.rail,
      kind: body.kind,
      billingCycle: body.recurring?.billing_cycle,
      description: body.description,
    });
  }

  @Get()
  @ApiOperation({
    operationId: 'listMandates',
    summary: 'Mandates of the workspace (an agent credential: its own), newest first',
  })
  @ApiPageResponse(MandateResponse)
  list(
    @Caller() caller: MandateCaller,
    @Query() q: ListMandatesQuery,
  ): Promise<Page<MandateResponse>> {
    return this.mandates.list(caller, {
      buyerAgentId: q.buyer_agent_id,
      status: q.status,
      limit: q.limit,
      startingAfter: q.starting_after,
    });
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getMandate', summary: 'One mandate, with its status and caps' })
  @ApiOkResponse({ type: MandateResponse })
  get(@Caller() caller: MandateCaller, @Param('id') id: string): Promise<MandateResponse> {
    return this.mandates.retrieve(caller, id);
  }
}
