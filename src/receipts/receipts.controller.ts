import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';

import { AcpRoute, Auth, Caller } from '../common/auth/auth.decorators';
import type { AgentPrincipal, ProtocolKeyPrincipal } from '../common/auth/principal';
import { ReceiptsService, ReceiptView } from './receipts.service';

class ReceiptEntryDoc {
  @ApiProperty() chain_id: string;
  @ApiProperty() seq: number;
  @ApiProperty({ description: '64 hex; 64 zeros for seq 1' }) prev_hash: string;
  @ApiProperty({
    description: 'hex(SHA-256(prev_hash + "\\n" + JCS({chain_id, seq, created_at, payload})))',
  })
  hash: string;
  @ApiProperty() created_at: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) payload: Record<string, unknown>;
  @ApiProperty({ description: 'Key id in /.well-known/jwks.json' }) kid: string;
  @ApiProperty({ description: 'Compact JWS (EdDSA) whose payload is `hash`' }) jws: string;
}

class ReceiptDoc {
  @ApiProperty({ example: 'rcp_…' }) id: string;
  @ApiProperty({ enum: ['receipt'] }) object: string;
  @ApiProperty() intent_id: string;
  @ApiProperty() buyer_agent_id: string;
  @ApiProperty() seller_agent_id: string;
  @ApiProperty() amount_paise: number;
  @ApiProperty() amount_refunded_paise: number;
  @ApiProperty({ example: 'INR' }) currency: string;
  @ApiProperty() status: string;
  @ApiProperty({ type: [ReceiptEntryDoc] }) entries: ReceiptEntryDoc[];
  @ApiProperty({ type: 'object', additionalProperties: true }) verification: Record<string, string>;
}

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
