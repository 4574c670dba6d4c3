import type { Request } from 'express';

/**
 * JSON-RPC batches on /mcp (docs/mcp.md "MCP server", docs/security.md "Rate limits"). A POST may carry a batch of
 * messages; each message counts as one request against the credential's per-second budget, the
 * budget /v1 and /acp share, so batching buys no extra calls.
 *
 * A batch is at most MCP_MAX_BATCH_MESSAGES messages and never more than the budget itself (so a
 * batch allowed by its size can always run in a fresh window). A larger one is refused whole
 * with HTTP 400 and JSON-RPC -32600 before any message runs, as the MCP SDK refuses a batch over
 * its own cap of 100; it runs nothing, so it counts as one request. A batch that does not fit
 * in what is left of the budget is refused whole with 429 and Retry-After (nothing runs, so the
 * whole batch can be sent again), not answered with per-message errors.
 */
export const MCP_MAX_BATCH_MESSAGES = 10;

/** The largest batch a credential with this per-second budget may send. */
export function mcpMaxBatch(budget: number): number {
  return Math.max(1, Math.min(MCP_MAX_BATCH_MESSAGES, budget));
}

/** RateLimitCost of POST /mcp: one per message of a batch that will run, else one. */
export function mcpRequestCost(req: Request, budget: number): number {
  const body: unknown = req.body;
  return Array.isArray(body) && body.length > 1 && body.length <= mcpMaxBatch(budget)
    ? body.length
    : 1;
}

/** The JSON-RPC error for a batch over the cap, or null when the body is within it. */
export function oversizedBatchError(
  body: unknown,
  budget: number,
): { jsonrpc: '2.0'; error: { code: number; message: string }; id: null } | null {
  const max = mcpMaxBatch(budget);
  if (!Array.isArray(body) || body.length <= max) {
    return null;
  }
  return {
    jsonrpc: '2.0',
    // JSON-RPC 2.0 "Invalid Request", as the SDK answers a batch over its own cap.
    error: {
      code: -32600,
      message: `Invalid Request: a batch may carry at most ${max} messages (this one has ${body.length}); each message counts against the credential's rate limit of ${budget} requests per second`,
    },
    id: null,
  };
}
