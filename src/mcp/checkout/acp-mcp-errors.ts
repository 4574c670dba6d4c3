import { SUPPORTED_ACP_VERSIONS } from '../../common/auth/acp.guard';
import type { AcpErrorBody } from '../../common/errors/error-body';

/** docs/mcp-binding.md "Error Handling": every ACP error is JSON-RPC -32000, the Error in `data`. */
export const ACP_JSONRPC_ERROR = -32000;

/**
 * An ACP error already in its MCP form (param relative to the tool arguments). Thrown by the
 * argument checks; service, pipe and idempotency errors are converted by toAcpMcpError.
 */
export class AcpMcpError extends Error {
  constructor(readonly body: AcpErrorBody) {
    super(body.message);
  }
}

/** What the SDK's Protocol sends as the JSON-RPC error: its code, message and data. */
export class JsonRpcAcpError extends Error {
  readonly code = ACP_JSONRPC_ERROR;
  constructor(readonly data: AcpErrorBody) {
    super(data.message);
  }
}

const HEADER_PARAMS: Record<string, string> = {
  'idempotency-key': '$.meta.idempotency_key',
  'api-version': '$.meta.api_version',
  'request-id': '$.meta.request_id',
  signature: '$.meta.signature',
  timestamp: '$.meta.timestamp',
};

/**
 * A REST error's `param` named relative to the tool arguments: body JSONPaths move under
 * `$.payload` (as the binding's own example, `$.payload.currency`), headers become their `meta`
 * field. Anything else is kept.
 */
export function mcpParam(param: string | undefined): string | undefined {
  if (param === undefined) {
    return undefined;
  }
  if (param === '$') {
    return '$.payload';
  }
  if (param.startsWith('$.') || param.startsWith('$[')) {
    return `$.payload${param.slice(1)}`;
  }
  return HEADER_PARAMS[param.toLowerCase()] ?? param;
}

export function withMcpParam(body: AcpErrorBody): AcpErrorBody {
  const param = mcpParam(body.param);
  const out: AcpErrorBody = { ...body };
  if (param === undefined) {
    delete out.param;
  } else {
    out.param = param;
  }
  return out;
}

export const acpMcpErrors = {
  missing: (param: string, message: string) =>
    new AcpMcpError({ type: 'invalid_request', code: 'missing', message, param }),
  invalid: (param: string, message: string) =>
    new AcpMcpError({ type: 'invalid_request', code: 'invalid', message, param }),
  /** The REST API-Version refusals (AcpGuard), for meta.api_version. */
  missingApiVersion: () =>
    new AcpMcpError({
      type: 'invalid_request',
      code: 'missing_api_version',
      message: `Send meta.api_version: ${SUPPORTED_ACP_VERSIONS[0]}`,
      param: '$.meta.api_version',
      supported_versions: [...SUPPORTED_ACP_VERSIONS],
    }),
  unsupportedApiVersion: (version: string) =>
    new AcpMcpError({
      type: 'invalid_request',
      code: 'unsupported_api_version',
      message: `API-Version ${version.slice(0, 40)} is not supported`,
      param: '$.meta.api_version',
      supported_versions: [...SUPPORTED_ACP_VERSIONS],
    }),
};
