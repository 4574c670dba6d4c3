import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';

import type { AgentPrincipal, ProtocolKeyPrincipal } from '../common/auth/principal';
import { requestIdOf } from '../common/http/request-id';
import { RateLimiter } from '../common/rate-limit/rate-limiter.service';
import { AcpCheckoutMcpFactory } from './checkout/acp-checkout-mcp.factory';
import { oversizedBatchError } from './mcp-batch';
import { McpServerFactory } from './mcp-server.factory';
import { UcpMcpFactory } from './ucp/ucp-mcp.factory';

/** JSON-RPC "server error" range; the SDK's own examples use it for a 405 in stateless mode. */
const JSONRPC_METHOD_NOT_ALLOWED = -32000;

/**
 * Runs one MCP exchange per HTTP request (stateless Streamable HTTP). The credential picks the
 * server: an agent gets the agent tools (McpServerFactory), a merchant protocol key the five ACP
 * checkout tools (AcpCheckoutMcpFactory), or at `/mcp?protocol=ucp` UCP's five checkout tools
 * (UcpMcpFactory), so each lists only the tools it may call.
 */
@Injectable()
export class McpService {
  constructor(
    private readonly factory: McpServerFactory,
    private readonly checkout: AcpCheckoutMcpFactory,
    private readonly limiter: RateLimiter,
    private readonly ucp: UcpMcpFactory,
  ) {}

  async handle(
    caller: AgentPrincipal | ProtocolKeyPrincipal,
    req: Request,
    res: Response,
  ): Promise<void> {
    // A batch over the cap runs nothing (mcp-batch.ts); it was counted as one request.
    const oversized = oversizedBatchError(req.body, this.limiter.policies.credential.limit);
    if (oversized) {
      res.status(400).json(oversized);
      return;
    }
    const server =
      caller.kind === 'agent'
        ? this.factory.create({ caller, requestId: requestIdOf(req) })
        : req.query.protocol === 'ucp'
          ? this.ucp.create({ caller, req })
          : this.checkout.create({ caller, req });
    // No session id: each request is complete in itself, so any instance can answer it. JSON
    // responses rather than an SSE stream, since no tool streams progress.
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      void server.close();
    });
    await server.connect(transport);
    // The body was already parsed by the HTTP pipeline's JSON parser.
    await transport.handleRequest(req, res, req.body);
  }

  /** GET (server-to-client stream) and DELETE (session end) need a session; there is none. */
  methodNotAllowed(res: Response): void {
    res
      .status(405)
      .setHeader('Allow', 'POST')
      .json({
        jsonrpc: '2.0',
        error: {
          code: JSONRPC_METHOD_NOT_ALLOWED,
          message:
            'Method not allowed: this MCP server is stateless; send JSON-RPC messages with POST',
        },
        id: null,
      });
  }
}
