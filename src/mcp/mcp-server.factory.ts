import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Inject, Injectable, Logger } from '@nestjs/common';

import { AppError } from '../common/errors/app-error';
import { MCP_TOOLS, McpTool, McpToolContext, McpToolError } from './mcp-tool';

const SERVER_INFO = { name: 'agent-payments', version: '0.1.0' };

/** Kept tool-agnostic, so adding a tool touches only its own file and tools/index.ts. */
const INSTRUCTIONS =
  'Payments service for agents in India (sandbox). Amounts are integer paise (INR × 100). ' +
  'Anything that moves money back (refunds) or books foreign exchange waits for a person to ' +
  'approve it in the app; tool results say where. Call whoami to see which agent you are.';

/**
 * Builds one McpServer per HTTP request (stateless Streamable HTTP), with every tool of
 * MCP_TOOLS bound to the authenticated agent. Tool failures never escape as HTTP 500s: an
 * AppError or McpToolError becomes an `isError` result naming the argument at fault, and anything
 * else is logged and reported as an opaque internal error.
 */
@Injectable()
export class McpServerFactory {
  private readonly logger = new Logger('Mcp');

  constructor(@Inject(MCP_TOOLS) private readonly tools: McpTool[]) {}

  create(ctx: McpToolContext): McpServer {
    const server = new McpServer(SERVER_INFO, {
      capabilities: { tools: {} },
      instructions: INSTRUCTIONS,
    });
    for (const tool of this.tools) {
      server.registerTool(
        tool.name,
        {
          title: tool.title,
          description: tool.description,
          inputSchema: tool.inputSchema,
          outputSchema: tool.outputSchema,
          annotations: tool.annotations,
        },
        (args: unknown) => this.callTool(tool, args, ctx),
      );
    }
    return server;
  }

  private async callTool(
    tool: McpTool,
    args: unknown,
    ctx: McpToolContext,
  ): Promise<CallToolResult> {
    try {
      const result = await tool.call(args as never, ctx);
      return {
        content: [{ type: 'text', text: JSON.stringify(result) }],
        structuredContent: result,
      };
    } catch (err) {
      return this.toolError(tool, err, ctx);
    }
  }

  /** No structuredContent on errors: clients check it against the tool's output schema. */
  private toolError(tool: McpTool, err: unknown, ctx: McpToolContext): CallToolResult {
    let code: string;
    let message: string;
    let field: string | undefined;
    if (err instanceof McpToolError) {
      ({ code, message, field } = err);
    } else if (err instanceof AppError && err.status < 500) {
      code = err.code;
      message = err.message;
      field = fieldOf(err.param);
    } else {
      this.logger.error(
        {
          err:
            err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : err,
          tool: tool.name,
          request_id: ctx.requestId,
        },
        'MCP tool failed',
      );
      code = err instanceof AppError ? err.code : 'internal_error';
      message = `unexpected error, logged under request ${ctx.requestId}`;
    }
    const prefix = field !== undefined && !message.startsWith(field) ? `${field}: ` : '';
    return {
      content: [{ type: 'text', text: `${prefix}${message} (code: ${code})` }],
      isError: true,
    };
  }
}

/**
 * Service errors name fields as JSONPaths of the HTTP request (`$.amount_paise`,
 * `$.query.starting_after`); a tool's arguments are flat, so the argument is the last segment
 * of that path's root object.
 */
function fieldOf(param: string | undefined): string | undefined {
  if (param === undefined) {
    return undefined;
  }
  return param.replace(/^\$\.?/, '').replace(/^(query|body|params)\./, '') || undefined;
}
