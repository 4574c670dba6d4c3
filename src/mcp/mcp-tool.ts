import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';

import type { AgentPrincipal } from '../common/auth/principal';

/** What every tool call knows besides its arguments: the authenticated agent. */
export interface McpToolContext {
  caller: AgentPrincipal;
  /** The HTTP request's id, quoted in internal-error messages. */
  requestId: string;
}

/** Injection token: every registered tool (see tools/index.ts). */
export const MCP_TOOLS = Symbol('MCP_TOOLS');

/**
 * One MCP tool. A tool is an injectable class in `tools/<name>.tool.ts` listed in
 * `tools/index.ts`; McpServerFactory registers every listed tool on each request's server.
 *
 * `call` returns the structured result (sent as structuredContent and as JSON text) or throws
 * an AppError / McpToolError, which the factory turns into an `isError` result naming the field.
 * Input is validated by the SDK against `inputSchema` before `call` runs; output is checked
 * against `outputSchema` by the SDK on both ends. Output schemas list as closed JSON Schemas
 * (additionalProperties: false), so build results field by field rather than spreading a
 * service's response type, whose new fields would fail client-side validation.
 */
export interface McpTool<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: I;
  readonly outputSchema: O;
  readonly annotations?: ToolAnnotations;
  call(input: z.output<I>, ctx: McpToolContext): Promise<z.output<O>>;
}

/** A refusal a tool raises itself (no AppError fits), naming the argument at fault. */
export class McpToolError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}
