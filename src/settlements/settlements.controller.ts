import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';

import { Auth, Caller } from '../common/auth/auth.decorators';
import type { AgentPrincipal } from '../common/auth/principal';
import type { Page } from '../common/pagination';
import { ApiPageResponse } from '../openapi/page.decorator';
import { ListSettlementsQuery } from './dto/list-settlements.query';
import { SettlementLineResponse } from './dto/settlement-line.response';
import { SettlementsService } from './settlements.service';

@ApiTags('settlements')
@Controller('v1/pay/settlements')
@Auth('agent')
export class SettlementsController {
  constructor(private readonly settlements: SettlementsService) {}

  @Get()
  @ApiOperation({
    operationId: 'listSettlementLines',
    summary:
      "Settlement lines of the calling seller's gateway payments and refunds: fee, tax, UTR, and any mismatch (amount, missing), newest first (cursor pagination)",
  })
  @ApiPageResponse(SettlementLineResponse)
  list(
    @Caller() caller: AgentPrincipal,
    @Query() q: ListSettlementsQuery,
  ): Promise<Page<SettlementLineResponse>> {
    return this.settlements.listForSeller(caller.id, {
      mismatch: q.mismatch,
      limit: q.limit,
      startingAfter: q.starting_after,
    });
  }
}
