import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { AcpRoute, Caller } from '../common/auth/auth.decorators';
import type { ProtocolKeyPrincipal } from '../common/auth/principal';
import { Idempotent } from '../common/idempotency/idempotent.decorator';
import { PageQuery, toPage } from '../common/pagination';
import {
  CreateOrderEndpointDto,
  OrderEndpointList,
  OrderEndpointResponse,
} from './dto/order-endpoint.dto';
import { EndpointScope } from './webhook-endpoint.repository';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { toOrderEndpointResponse } from './webhooks.mapper';

const actorOf = (caller: ProtocolKeyPrincipal) => ({
  type: 'protocol_key' as const,
  id: caller.id,
});

const scopeOf = (caller: ProtocolKeyPrincipal): EndpointScope => ({
  kind: 'acp_order',
  workspaceId: caller.workspaceId,
  protocolKeyId: caller.id,
});

/**
 * ACP order webhooks (docs/webhooks.md "Order webhooks"): an agent platform registers, with its merchant
 * protocol key, where we POST order_create/order_update for the orders of sessions it created
 * with that key. A key sees only its own receivers; any other id is 404.
 */
@ApiTags('acp-orders')
@Controller('acp/webhooks/order_endpoints')
@AcpRoute('merchant')
export class OrderEndpointsController {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  @Post()
  @Idempotent()
  @ApiOperation({
    operationId: 'createOrderWebhookEndpoint',
    summary: 'Register an order event receiver; the signing secret is shown once',
  })
  @ApiCreatedResponse({ type: OrderEndpointResponse })
  async create(
    @Caller() caller: ProtocolKeyPrincipal,
    @Body() body: CreateOrderEndpointDto,
  ): Promise<OrderEndpointResponse> {
    const { endpoint, secret } = await this.endpoints.createOrderEndpoint(
      { workspaceId: caller.workspaceId, agentId: caller.agentId, protocolKeyId: caller.id },
      { url: body.url, description: body.description },
      actorOf(caller),
    );
    return toOrderEndpointResponse(endpoint, secret);
  }

  @Get()
  @ApiOperation({
    operationId: 'listOrderWebhookEndpoints',
    summary: "This merchant key's order receivers (newest first), without secrets",
  })
  @ApiOkResponse({ type: OrderEndpointList })
  async list(
    @Caller() caller: ProtocolKeyPrincipal,
    @Query() q: PageQuery,
  ): Promise<OrderEndpointList> {
    const rows = await this.endpoints.listRows(scopeOf(caller), q.limit, q.starting_after);
    return toPage(rows, q.limit ?? 20, (e) => toOrderEndpointResponse(e));
  }

  @Get(':endpoint_id')
  @ApiOperation({
    operationId: 'getOrderWebhookEndpoint',
    summary: 'One order receiver, with its status and disabled_reason',
  })
  @ApiOkResponse({ type: OrderEndpointResponse })
  async get(
    @Caller() caller: ProtocolKeyPrincipal,
    @Param('endpoint_id') id: string,
  ): Promise<OrderEndpointResponse> {
    return toOrderEndpointResponse(await this.endpoints.getRow(scopeOf(caller), id));
  }

  @Post(':endpoint_id/disable')
  @HttpCode(200)
  @Idempotent()
  @ApiOperation({
    operationId: 'disableOrderWebhookEndpoint',
    summary: 'Stop deliveries; pending ones wait until enabled',
  })
  @ApiOkResponse({ type: OrderEndpointResponse })
  async disable(
    @Caller() caller: ProtocolKeyPrincipal,
    @Param('endpoint_id') id: string,
  ): Promise<OrderEndpointResponse> {
    return toOrderEndpointResponse(
      await this.endpoints.setStatusRow(scopeOf(caller), id, 'disabled', actorOf(caller)),
    );
  }

  @Post(':endpoint_id/enable')
  @HttpCode(200)
  @Idempotent()
  @ApiOperation({
    operationId: 'enableOrderWebhookEndpoint',
    summary: 'Resume deliveries (also after retries_exhausted or gone)',
  })
  @ApiOkResponse({ type: OrderEndpointResponse })
  async enable(
    @Caller() caller: ProtocolKeyPrincipal,
    @Param('endpoint_id') id: string,
  ): Promise<OrderEndpointResponse> {
    return toOrderEndpointResponse(
      await this.endpoints.setStatusRow(scopeOf(caller), id, 'enabled', actorOf(caller)),
    );
  }
}
