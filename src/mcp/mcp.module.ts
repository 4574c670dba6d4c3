import { Module } from '@nestjs/common';

import { AccountsModule } from '../accounts/accounts.module';
import { RefundsModule } from '../refunds/refunds.module';
import { SellerModule } from '../seller/seller.module';
import { McpController } from './mcp.controller';
import { McpService } from './mcp.service';
import { McpAuthGuard } from './mcp-auth.guard';
import { McpRefundRequestRepository } from './mcp-refund-request.repository';
import { McpServerFactory } from './mcp-server.factory';
import { MCP_TOOLS, McpTool } from './mcp-tool';
import { MCP_TOOL_CLASSES } from './tools';

/** The MCP server at /mcp (Streamable HTTP, stateless, agent credential). Tools: tools/index.ts. */
@Module({
  imports: [AccountsModule, SellerModule, RefundsModule],
  controllers: [McpController],
  providers: [
    McpService,
    McpServerFactory,
    McpAuthGuard,
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
