import { Body, Controller, Get, Param, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { Auth, Caller } from '../common/auth/auth.decorators';
import type { AgentPrincipal } from '../common/auth/principal';
import { Idempotent } from '../common/idempotency/idempotent.decorator';
import { ListingResponse, SellerPage, SellersQuery } from './dto/listing.response';
import { PutListingDto } from './dto/put-listing.dto';
import { SellerService } from './seller.service';

@ApiTags('sellers')
@Controller('v1/pay')
export class SellerController {
  constructor(private readonly listings: SellerService) {}

  @Put('agents/:agent_id/listing')
  @Auth('agent')
  @Idempotent()
  @ApiOperation({
    operationId: 'putListing',
    summary:
      "Publish the seller agent's listing (replaces the offer list; omitted offers are withdrawn)",
  })
  @ApiOkResponse({ type: ListingResponse })
  putListing(
    @Caller() caller: AgentPrincipal,
    @Param('agent_id') agentId: string,
    @Body() body: PutListingDto,
  ): Promise<ListingResponse> {
    return this.listings.putListing(caller, agentId, body);
  }

  @Get('sellers')
  @Auth('agent', 'api_key')
  @ApiOperation({ operationId: 'listSellers', summary: 'Listed sellers with their active offers' })
  @ApiOkResponse({ type: SellerPage })
  sellers(@Query() q: SellersQuery): Promise<SellerPage> {
    return this.listings.searchSellers({
      category: q.category,
      q: q.q,
      limit: q.limit,
      startingAfter: q.starting_after,
    });
  }
}
