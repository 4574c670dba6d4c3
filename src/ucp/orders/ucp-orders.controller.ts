import { Controller, Get, Param } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';

import { Caller } from '../../common/auth/auth.decorators';
import type { ProtocolKeyPrincipal } from '../../common/auth/principal';
import { OrdersService } from '../../orders/orders.service';
import { UcpRoute } from '../ucp.guards';
import { UCP_ORDER, UcpResponses } from '../ucp-openapi';
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
  @UcpResponses(200, UCP_ORDER, { notFound: true, write: false })
  async get(@Caller() caller: ProtocolKeyPrincipal, @Param('id') id: string): Promise<UcpOrder> {
    return toUcpOrder(await this.orders.getForMerchant(caller, id));
  }
}
