import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';

import { Auth, Caller } from '../common/auth/auth.decorators';
import type { ApiKeyPrincipal } from '../common/auth/principal';
import { ApiPageResponse } from '../openapi/page.decorator';
import { ListEventsQuery } from './dto/list-events.query';
import { EventResponse } from './dto/webhook.responses';
import { EventsService } from './events.service';

@ApiTags('webhooks')
@Controller('v1/events')
@Auth('api_key')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @ApiOperation({
    operationId: 'listEvents',
    summary: "The workspace's events as webhooks carry them (newest first), for reconciliation",
  })
  @ApiPageResponse(EventResponse)
  list(@Caller() caller: ApiKeyPrincipal, @Query() q: ListEventsQuery) {
    return this.events.listEvents(
      caller.workspaceId,
      { type: q.type, agentId: q.agent_id },
      q.limit,
      q.starting_after,
    );
  }
}
