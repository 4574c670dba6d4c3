import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { Auth, Caller } from '../common/auth/auth.decorators';
import type { ApiKeyPrincipal } from '../common/auth/principal';
import { Idempotent } from '../common/idempotency/idempotent.decorator';
import { PageQuery } from '../common/pagination';
import { ApiPageResponse } from '../openapi/page.decorator';
import { CreateProtocolKeyDto, ProtocolKeyResponse } from './protocol-keys.dto';
import { ProtocolKeysService } from './protocol-keys.service';

@ApiTags('protocol keys')
@Controller('v1/pay/protocol-keys')
@Auth('api_key')
export class ProtocolKeysController {
  constructor(private readonly keys: ProtocolKeysService) {}

  @Post()
  @Idempotent()
  @ApiOperation({
    operationId: 'createProtocolKey',
    summary: 'Issue a protocol key for /acp (shown once)',
  })
  @ApiCreatedResponse({ type: ProtocolKeyResponse })
  create(
    @Caller() caller: ApiKeyPrincipal,
    @Body() body: CreateProtocolKeyDto,
  ): Promise<ProtocolKeyResponse> {
    return this.keys.create(
      caller.workspaceId,
      { role: body.role, agentId: body.agent_id, name: body.name, publicKey: body.public_key },
      { type: 'api_key', id: caller.id },
    );
  }

  @Get()
  @ApiOperation({
    operationId: 'listProtocolKeys',
    summary: 'List protocol keys without their secrets',
  })
  @ApiPageResponse(ProtocolKeyResponse)
  list(@Caller() caller: ApiKeyPrincipal, @Query() q: PageQuery) {
    return this.keys.list(caller.workspaceId, q.limit, q.starting_after);
  }

  @Post(':id/revoke')
  @HttpCode(200)
  @Idempotent()
  @ApiOperation({
    operationId: 'revokeProtocolKey',
    summary: 'Revoke; the key fails on its very next request',
  })
  @ApiOkResponse({ type: ProtocolKeyResponse })
  revoke(@Caller() caller: ApiKeyPrincipal, @Param('id') id: string): Promise<ProtocolKeyResponse> {
    return this.keys.revoke(caller.workspaceId, id, { type: 'api_key', id: caller.id });
  }
}
