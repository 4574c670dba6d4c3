import { Module } from '@nestjs/common';

import { AccountsModule } from '../accounts/accounts.module';
import { CheckoutModule } from '../checkout/checkout.module';
import { PostgresNonceStore } from '../common/signing/http-message-signatures/postgres-nonce-store';
import { ForexModule } from '../forex/forex.module';
import { RefundsModule } from '../refunds/refunds.module';
import { SellerModule } from '../seller/seller.module';
import { UcpModule } from '../ucp/ucp.module';
import { UcpRequestSignatures } from '../ucp/ucp-request-signatures';
import { AcpCheckoutMcpFactory } from './checkout/acp-checkout-mcp.factory';
import { McpController } from './mcp.controller';
import { McpService } from './mcp.service';
import { McpAuthGuard } from './mcp-auth.guard';
import { McpIdempotency } from './mcp-idempotency';
import { McpRefundRequestRepository } from './mcp-refund-request.repository';
import { McpServerFactory } from './mcp-server.factory';
import { MCP_TOOLS, McpTool } from './mcp-tool';
import { MCP_TOOL_CLASSES } from './tools';
import { UcpMcpFactory } from './ucp/ucp-mcp.factory';

/**
 * The MCP server at /mcp (Streamable HTTP, stateless). Agent credential: tools/index.ts (seller and
 * forex tools); merchant
 * protocol key: the ACP checkout binding (checkout/), or UCP's with `?protocol=ucp` (ucp/).
 */
@Module({
  imports: [AccountsModule, SellerModule, RefundsModule, CheckoutModule, ForexModule, UcpModule],
  controllers: [McpController],
  providers: [
    McpService,
    McpServerFactory,
    AcpCheckoutMcpFactory,
    UcpMcpFactory,
    // The platform's RFC 9421 request signature on UCP tool calls (UcpModule does not export it).
    UcpRequestSignatures,
    PostgresNonceStore,
    McpAuthGuard,
    McpIdempotency,
    McpRefundRequestRepository,
    ...MCP_TOOL_CLASSES,
    {
      provide: MCP_TOOLS,
      useFactory: (...tools: McpTool[]) => tools,
      inject: MCP_TOOL_CLASSES,
    },
  ],
})
export class McpModule {}
