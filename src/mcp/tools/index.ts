import { FindSellerTool } from './find-seller.tool';
import { IssueRefundTool } from './issue-refund.tool';
import { WhoamiTool } from './whoami.tool';

/**
 * Every tool the /mcp server offers, in listing order. To add a tool: write `<name>.tool.ts`
 * implementing McpTool, add its class here, and import the module of the service it uses in
 * McpModule.
 */
export const MCP_TOOL_CLASSES = [WhoamiTool, FindSellerTool, IssueRefundTool];
