import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { Caller } from '../../common/auth/auth.decorators';
import type { ProtocolKeyPrincipal } from '../../common/auth/principal';
import { OrdersService } from '../../orders/orders.service';
import { UcpRoute } from '../ucp.guards';
import { toUcpOrder, UcpOrder } from './ucp-order.mapper';

/**
 * The UCP order REST binding (docs/ucp.md "Orders"): the current-state snapshot of the order of a
 * completed checkout session, for a merchant key of the session's seller (anyone else: 404, like
 * an unknown id). The order is OrdersService's ACP Order, renamed to UCP.
 */
@ApiTags('ucp')
@Controller('ucp/orders')
@UcpRoute()
export class UcpOrdersController {
  constructor(private readonly orders: OrdersService) {}

  @Get(':id')
  @ApiOperation({
    operationId: 'ucpGetOrder',
    summary: 'UCP: the order of a completed checkout (line items, digital delivery, refunds)',
  })
  @ApiOkResponse({
    schema: {
      type: 'object',
      additionalProperties: true,
      description: 'UCP 2026-04-08 schemas/shopping/order.json; errors: types/error_response.json',
    },
  })
  async get(@Caller() caller: ProtocolKeyPrincipal, @Param('id') id: string): Promise<UcpOrder> {
    return toUcpOrder(await this.orders.getForMerchant(caller, id));
  }
}
