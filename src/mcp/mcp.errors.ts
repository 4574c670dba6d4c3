import { AppError } from '../common/errors/app-error';
import { McpToolError } from './mcp-tool';

export const mcpErrors = {
  /** HTTP level, before the MCP layer: rendered by the global filter as a /v1 error body. */
  unauthorized: (message: string) => new AppError(401, 'invalid_request', 'unauthorized', message),
  /** HTTP level: a buyer protocol key (the checkout tools are the merchant's, as on /acp). */
  wrongRole: (role: string) =>
    new AppError(
      403,
      'invalid_request',
      'wrong_role',
      `The checkout tools need a merchant protocol key; this key's role is ${role}`,
    ),
  /** Tool level: returned to the client as an isError tool result. */
  idempotencyKeyReused: () =>
    new McpToolError(
      'idempotency_key_reused',
      'this idempotency_key was already used with different arguments; use a new key for a new refund',
      'idempotency_key',
    ),
};
