import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { Auth, Caller } from '../common/auth/auth.decorators';
import type { ApiKeyPrincipal } from '../common/auth/principal';
import { Idempotent } from '../common/idempotency/idempotent.decorator';
import { PageQuery } from '../common/pagination';
import { ApiPageResponse } from '../openapi/page.decorator';
import { AccountsService } from './accounts.service';
import {
  AgentResponse,
  ApiKeyResponse,
  CreateAgentDto,
  CreateApiKeyDto,
  SetPublicKeyDto,
} from './dto/accounts.dto';

const actor = (p: ApiKeyPrincipal) => ({ type: 'api_key' as const, id: p.id });

@ApiTags('workspace')
@Controller('v1')
@Auth('api_key')
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Post('api-keys')
  @Idempotent()
  @ApiOperation({ operationId: 'createApiKey', summary: 'Create an API key (secret shown once)' })
  @ApiCreatedResponse({ type: ApiKeyResponse })
  createApiKey(
    @Caller() caller: ApiKeyPrincipal,
    @Body() body: CreateApiKeyDto,
  ): Promise<ApiKeyResponse> {
    return this.accounts.createApiKey(caller.workspaceId, body.name, actor(caller));
  }

  @Get('api-keys')
  @ApiOperation({ operationId: 'listApiKeys', summary: 'List API keys (never their secrets)' })
  @ApiPageResponse(ApiKeyResponse)
  listApiKeys(@Caller() caller: ApiKeyPrincipal, @Query() q: PageQuery) {
    return this.accounts.listApiKeys(caller.workspaceId, q.limit, q.starting_after);
  }

  @Post('api-keys/:id/revoke')
  @HttpCode(200)
  @Idempotent()
  @ApiOperation({
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key; it fails on the next request',
  })
  @ApiOkResponse({ type: ApiKeyResponse })
  revokeApiKey(
    @Caller() caller: ApiKeyPrincipal,
    @Param('id') id: string,
  ): Promise<ApiKeyResponse> {
    return this.accounts.revokeApiKey(caller.workspaceId, id, actor(caller));
  }

  @Post('pay/agents')
  @Idempotent()
  @ApiOperation({
    operationId: 'createAgent',
    summary: 'Create an agent (agt_…) with its credential (shown once)',
  })
  @ApiCreatedResponse({ type: AgentResponse })
  createAgent(
    @Caller() caller: ApiKeyPrincipal,
    @Body() body: CreateAgentDto,
  ): Promise<AgentResponse> {
    return this.accounts.createAgent(
      caller.workspaceId,
      { name: body.name, role: body.role, publicKey: body.public_key },
      actor(caller),
    );
  }

  @Get('pay/agents')
  @ApiOperation({
    operationId: 'listAgents',
    summary: "List the workspace's agents (never their credentials)",
  })
  @ApiPageResponse(AgentResponse)
  listAgents(@Caller() caller: ApiKeyPrincipal, @Query() q: PageQuery) {
    return this.accounts.listAgents(caller.workspaceId, q.limit, q.starting_after);
  }

  @Post('pay/agents/:id/credential')
  @HttpCode(200)
  @Idempotent()
  @ApiOperation({
    operationId: 'rotateAgentCredential',
    summary: 'Issue a new agent credential; the old one stops working',
  })
  @ApiOkResponse({ type: AgentResponse })
  rotate(@Caller() caller: ApiKeyPrincipal, @Param('id') id: string): Promise<AgentResponse> {
    return this.accounts.rotateAgentCredential(caller.workspaceId, id, actor(caller));
  }

  @Post('pay/agents/:id/public-key')
  @HttpCode(200)
  @Idempotent()
  @ApiOperation({
    operationId: 'setAgentPublicKey',
    summary: 'Register (or remove) the agent public key used to sign its requests',
  })
  @ApiOkResponse({ type: AgentResponse })
  setPublicKey(
    @Caller() caller: ApiKeyPrincipal,
    @Param('id') id: string,
    @Body() body: SetPublicKeyDto,
  ): Promise<AgentResponse> {
    return this.accounts.setAgentPublicKey(caller.workspaceId, id, body.public_key, actor(caller));
  }
}
