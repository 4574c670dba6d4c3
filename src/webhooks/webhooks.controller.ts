import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';

import { Auth, Caller } from '../common/auth/auth.decorators';
import type { ApiKeyPrincipal } from '../common/auth/principal';
import { Idempotent } from '../common/idempotency/idempotent.decorator';
import { PageQuery } from '../common/pagination';
import { ApiPageResponse } from '../openapi/page.decorator';
import {
  WebhookAttemptResponse,
  WebhookDeliveryResponse,
  WebhookEndpointResponse,
} from './dto/webhook.responses';
import { CreateWebhookEndpointDto, RotateWebhookSecretDto } from './dto/webhook-endpoint.dto';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { PREVIOUS_SECRET_TTL_S, WebhookEndpointsService } from './webhook-endpoints.service';

const actorOf = (caller: ApiKeyPrincipal) => ({ type: 'api_key' as const, id: caller.id });

@ApiTags('webhooks')
@Controller('v1/webhooks')
@Auth('api_key')
export class WebhooksController {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly deliveries: WebhookDeliveriesService,
  ) {}

  @Post('endpoints')
  @Idempotent()
  @ApiOperation({
    operationId: 'createWebhookEndpoint',
    summary: 'Register a webhook endpoint; the signing secret is shown once',
  })
  @ApiCreatedResponse({ type: WebhookEndpointResponse })
  create(
    @Caller() caller: ApiKeyPrincipal,
    @Body() body: CreateWebhookEndpointDto,
  ): Promise<WebhookEndpointResponse> {
    return this.endpoints.createEndpoint(
      caller.workspaceId,
      {
        url: body.url,
        eventTypes: body.event_types,
        agentId: body.agent_id,
        description: body.description,
      },
      actorOf(caller),
    );
  }

  @Get('endpoints')
  @ApiOperation({
    operationId: 'listWebhookEndpoints',
    summary: 'List webhook endpoints (newest first), without secrets',
  })
  @ApiPageResponse(WebhookEndpointResponse)
  list(@Caller() caller: ApiKeyPrincipal, @Query() q: PageQuery) {
    return this.endpoints.listEndpoints(caller.workspaceId, q.limit, q.starting_after);
  }

  @Get('endpoints/:id')
  @ApiOperation({
    operationId: 'getWebhookEndpoint',
    summary: 'One webhook endpoint, with its status and disabled_reason',
  })
  @ApiOkResponse({ type: WebhookEndpointResponse })
  get(
    @Caller() caller: ApiKeyPrincipal,
    @Param('id') id: string,
  ): Promise<WebhookEndpointResponse> {
    return this.endpoints.getEndpoint(caller.workspaceId, id);
  }

  @Post('endpoints/:id/disable')
  @HttpCode(200)
  @Idempotent()
  @ApiOperation({
    operationId: 'disableWebhookEndpoint',
    summary: 'Stop deliveries; pending ones wait until enabled',
  })
  @ApiOkResponse({ type: WebhookEndpointResponse })
  disable(
    @Caller() caller: ApiKeyPrincipal,
    @Param('id') id: string,
  ): Promise<WebhookEndpointResponse> {
    return this.endpoints.disableEndpoint(caller.workspaceId, id, actorOf(caller));
  }

  @Post('endpoints/:id/enable')
  @HttpCode(200)
  @Idempotent()
  @ApiOperation({
    operationId: 'enableWebhookEndpoint',
    summary: 'Resume deliveries (also after retries_exhausted or gone)',
  })
  @ApiOkResponse({ type: WebhookEndpointResponse })
  enable(
    @Caller() caller: ApiKeyPrincipal,
    @Param('id') id: string,
  ): Promise<WebhookEndpointResponse> {
    return this.endpoints.enableEndpoint(caller.workspaceId, id, actorOf(caller));
  }

  @Post('endpoints/:id/rotate-secret')
  @HttpCode(200)
  @Idempotent()
  @ApiOperation({
    operationId: 'rotateWebhookSecret',
    summary: 'Issue a new signing secret (shown once); the old one also signs for a while',
  })
  @ApiOkResponse({ type: WebhookEndpointResponse })
  rotateSecret(
    @Caller() caller: ApiKeyPrincipal,
    @Param('id') id: string,
    @Body() body: RotateWebhookSecretDto,
  ): Promise<WebhookEndpointResponse> {
    const ttl = body.previous_secret_expires_in_seconds ?? PREVIOUS_SECRET_TTL_S;
    return this.endpoints.rotateSecret(caller.workspaceId, id, ttl, actorOf(caller));
  }

  @Get('endpoints/:id/deliveries')
  @ApiOperation({
    operationId: 'listWebhookDeliveries',
    summary: "An endpoint's deliveries (newest first)",
  })
  @ApiPageResponse(WebhookDeliveryResponse)
  listDeliveries(
    @Caller() caller: ApiKeyPrincipal,
    @Param('id') id: string,
    @Query() q: PageQuery,
  ) {
    return this.deliveries.listDeliveries(caller.workspaceId, id, q.limit, q.starting_after);
  }

  @Get('deliveries/:id/attempts')
  @ApiOperation({
    operationId: 'listWebhookAttempts',
    summary: 'Every attempt of a delivery, oldest first',
  })
  @ApiPageResponse(WebhookAttemptResponse, 'Every attempt of the delivery, oldest first')
  listAttempts(@Caller() caller: ApiKeyPrincipal, @Param('id') id: string) {
    return this.deliveries.listAttempts(caller.workspaceId, id);
  }

  @Post('deliveries/:id/redeliver')
  @HttpCode(202)
  @Idempotent()
  @ApiOperation({
    operationId: 'redeliverWebhook',
    summary: 'One more attempt now (also after delivered or failed); re-enables nothing',
  })
  @ApiAcceptedResponse({ type: WebhookDeliveryResponse })
  redeliver(
    @Caller() caller: ApiKeyPrincipal,
    @Param('id') id: string,
  ): Promise<WebhookDeliveryResponse> {
    return this.deliveries.redeliver(caller.workspaceId, id, actorOf(caller));
  }
}
