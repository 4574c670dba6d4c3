import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type ListToolsResult,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * An MCP server of one protocol binding's tools (docs/mcp.md): lists `listed`, and answers a call
 * of a known tool with `call`; an unknown tool name is InvalidParams.
 */
export function toolServer<T extends { name: string }>(
  info: { name: string; version: string },
  instructions: string,
  listed: Tool[],
  tools: readonly T[],
  call: (tool: T, args: Record<string, unknown>) => Promise<CallToolResult>,
): Server {
  const server = new Server(info, { capabilities: { tools: {} }, instructions });
  server.setRequestHandler(ListToolsRequestSchema, (): ListToolsResult => ({ tools: listed }));
  server.setRequestHandler(CallToolRequestSchema, (request): Promise<CallToolResult> => {
    const tool = tools.find((t) => t.name === request.params.name);
    if (!tool) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${request.params.name}`);
    }
    return call(tool, request.params.arguments ?? {});
  });
  return server;
}
