import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { Auth, Caller } from '../common/auth/auth.decorators';
import { Idempotent } from '../common/idempotency/idempotent.decorator';
import type { Page } from '../common/pagination';
import { ApiPageResponse } from '../openapi/page.decorator';
import {
  CreateMandateAmendmentDto,
  ListMandateAmendmentsQuery,
  MandateAmendmentResponse,
} from './dto/mandate-amendment.dto';
import { AmendmentCaller, MandateAmendmentsService } from './mandate-amendments.service';

@ApiTags('mandates')
@Controller('v1/pay/mandates/:id/amendments')
@Auth('api_key', 'agent')
export class MandateAmendmentsController {
  constructor(private readonly amendments: MandateAmendmentsService) {}

  @Post()
  @Idempotent()
  @ApiOperation({
    operationId: 'createMandateAmendment',
    summary:
      "The buyer agent asks to change a mandate's cap, validity or sellers; a person authorises it at authorization_url, and until then the old terms apply",
  })
  @ApiCreatedResponse({ type: MandateAmendmentResponse })
  create(
    @Caller() caller: AmendmentCaller,
    @Param('id') id: string,
    @Body() body: CreateMandateAmendmentDto,
  ): Promise<MandateAmendmentResponse> {
    return this.amendments.request(caller, id, body);
  }

  @Get()
  @ApiOperation({
    operationId: 'listMandateAmendments',
    summary: "A mandate's amendments, newest first",
  })
  @ApiPageResponse(MandateAmendmentResponse)
  list(
    @Caller() caller: AmendmentCaller,
    @Param('id') id: string,
    @Query() q: ListMandateAmendmentsQuery,
  ): Promise<Page<MandateAmendmentResponse>> {
    return this.amendments.list(caller, id, { limit: q.limit, startingAfter: q.starting_after });
  }

  @Get(':amendment')
  @ApiOperation({
    operationId: 'getMandateAmendment',
    summary: "One amendment: old and new terms, the decision, and the mandate's receipt chain",
  })
  @ApiOkResponse({ type: MandateAmendmentResponse })
  get(
    @Caller() caller: AmendmentCaller,
    @Param('id') id: string,
    @Param('amendment') amendment: string,
  ): Promise<MandateAmendmentResponse> {
    return this.amendments.retrieve(caller, id, amendment);
  }
}
