import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { AcpRoute, Auth, Caller } from '../common/auth/auth.decorators';
import type { AgentPrincipal, ProtocolKeyPrincipal } from '../common/auth/principal';
import { ReceiptDoc } from './dto/receipt.response';
import { ReceiptsService, ReceiptView } from './receipts.service';

@ApiTags('receipts')
@Controller()
export class ReceiptsController {
  constructor(private readonly receipts: ReceiptsService) {}

  @Get('acp/receipts/:receipt_id')
  @AcpRoute('buyer')
  @ApiOperation({
    operationId: 'getReceiptAsBuyer',
    summary:
      'Signed, hash-chained receipt of a payment, fetched with the buyer protocol key (ours; ACP leaves this path open)',
  })
  @ApiOkResponse({ type: ReceiptDoc })
  forBuyer(
    @Caller() caller: ProtocolKeyPrincipal,
    @Param('receipt_id') id: string,
  ): Promise<ReceiptView> {
    return this.receipts.viewFor(id, caller.agentId);
  }

  @Get('v1/pay/receipts/:receipt_id')
  @Auth('agent')
  @ApiOperation({
    operationId: 'getReceipt',
    summary: 'The same receipt for either party, with its agent credential',
  })
  @ApiOkResponse({ type: ReceiptDoc })
  forParty(
    @Caller() caller: AgentPrincipal,
    @Param('receipt_id') id: string,
  ): Promise<ReceiptView> {
    return this.receipts.viewFor(id, caller.id);
  }
}
