import { Controller, Delete, Get, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';

import { Caller } from '../common/auth/auth.decorators';
import type { AgentPrincipal, ProtocolKeyPrincipal } from '../common/auth/principal';
import {
  CredentialRateLimitGuard,
  RateLimitCost,
} from '../common/rate-limit/credential-rate-limit.guard';
import { McpService } from './mcp.service';
import { McpAuthGuard } from './mcp-auth.guard';
import { mcpRequestCost } from './mcp-batch';

/**
 * MCP over Streamable HTTP (stateless), for agents (their tools) and merchant protocol keys (the
 * ACP checkout tools, see McpService): every POST carries one JSON-RPC message or batch and is
 * answered by a fresh server. There is no session and no server-initiated stream, so GET (the
 * SSE stream) and DELETE (session end) are 405. Documented in docs/mcp.md, not in OpenAPI.
 * Each message of a batch counts against the credential's rate limit (mcp-batch.ts).
 */
@ApiExcludeController()
@UseGuards(McpAuthGuard, CredentialRateLimitGuard)
@Controller('mcp')
export class McpController {
  constructor(private readonly mcp: McpService) {}

  @Post()
  @RateLimitCost(mcpRequestCost)
  handle(
    @Caller() caller: AgentPrincipal | ProtocolKeyPrincipal,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    return this.mcp.handle(caller, req, res);
  }

  @Get()
  stream(@Res() res: Response): void {
    this.mcp.methodNotAllowed(res);
  }

  @Delete()
  endSession(@Res() res: Response): void {
    this.mcp.methodNotAllowed(res);
  }
}
