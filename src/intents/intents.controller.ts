import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { Auth, Caller } from '../common/auth/auth.decorators';
import type { AgentPrincipal } from '../common/auth/principal';
import { Page } from '../common/pagination';
import { IntentDetailResponse, IntentListResponse, IntentResponse } from './dto/intent.response';
import { ListIntentsQuery } from './dto/list-intents.query';
import { IntentsService } from './intents.service';

@ApiTags('intents')
@Controller('v1/pay/intents')
@Auth('agent')
export class IntentsController {
  constructor(private readonly intents: IntentsService) {}

  @Get()
  @ApiOperation({
    operationId: 'listIntents',
    summary: "The calling agent's payments on one side, newest first (cursor pagination)",
  })
  @ApiOkResponse({ type: IntentListResponse })
  list(
    @Caller() caller: AgentPrincipal,
    @Query() q: ListIntentsQuery,
  ): Promise<Page<IntentResponse>> {
    return this.intents.list(caller.id, {
      side: q.side,
      status: q.status,
      limit: q.limit,
      startingAfter: q.starting_after,
    });
  }

  @Get(':id')
  @ApiOperation({
    operationId: 'getIntent',
    summary: 'One payment with its receipt and refunds, for either party (404 otherwise)',
  })
  @ApiOkResponse({ type: IntentDetailResponse })
  get(@Caller() caller: AgentPrincipal, @Param('id') id: string): Promise<IntentDetailResponse> {
    return this.intents.getForParty(caller.id, id);
  }
}
