import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { AcpRoute, Caller } from '../common/auth/auth.decorators';
import type { ProtocolKeyPrincipal } from '../common/auth/principal';
import { AcpOrderResponse } from './dto/order.response';
import { OrdersService } from './orders.service';

/** ACP orders for reconciliation (docs/webhooks.md "Order webhooks"), with the seller's merchant key. */
@ApiTags('acp-orders')
@Controller('acp/orders')
@AcpRoute('merchant')
export class OrdersController {
  constructor(private readonly orders: OrdersService) {}

  @Get(':order_id')
  @ApiOperation({
    operationId: 'getOrder',
    summary: 'The full, current order (the same Order the order webhooks carry); 404 for others',
  })
  @ApiOkResponse({ type: AcpOrderResponse })
  get(
    @Caller() caller: ProtocolKeyPrincipal,
    @Param('order_id') id: string,
  ): Promise<AcpOrderResponse> {
    return this.orders.getForMerchant(caller, id);
  }
}
