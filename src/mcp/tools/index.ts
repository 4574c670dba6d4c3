import { FindSellerTool } from './find-seller.tool';
import { ForexCreateFileTool } from './forex-create-file.tool';
import { ForexFileStatusTool } from './forex-file-status.tool';
import { ForexQuoteTool } from './forex-quote.tool';
import { ForexRatesTool } from './forex-rates.tool';
import { ForexSubmitFileTool } from './forex-submit-file.tool';
import { ForexUploadDocumentTool } from './forex-upload-document.tool';
import { IssueRefundTool } from './issue-refund.tool';
import { WhoamiTool } from './whoami.tool';

/**
 * Every tool the /mcp server offers, in listing order. To add a tool: write `<name>.tool.ts`
 * implementing McpTool, add its class here, and import the module of the service it uses in
 * McpModule.
 */
export const MCP_TOOL_CLASSES = [
  WhoamiTool,
  FindSellerTool,
  IssueRefundTool,
  ForexRatesTool,
  ForexCreateFileTool,
  ForexQuoteTool,
  ForexUploadDocumentTool,
  ForexSubmitFileTool,
  ForexFileStatusTool,
];
