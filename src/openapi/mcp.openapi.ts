import type {
  OpenAPIObject,
  PathItemObject,
  SchemaObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/**
 * POST /mcp: MCP over stateless Streamable HTTP (src/mcp/mcp.controller.ts, excluded from the
 * decorator scan because its body is a JSON-RPC message the MCP SDK parses). Described here by
 * hand: one JSON-RPC 2.0 request or notification (or a batch) in, the JSON-RPC response(s) out.
 * Tools and their arguments are listed by the `tools/list` method, not in this document.
 */
const JSON_RPC_ID: SchemaObject = {
  oneOf: [{ type: 'string' }, { type: 'integer' }],
  description: 'Absent on notifications',
};

const JSON_RPC_RESPONSE_ID: SchemaObject = {
  oneOf: [{ type: 'string', nullable: true }, { type: 'integer' }],
  description: 'The request id; null when it could not be read',
};

export const MCP_SCHEMAS: Record<string, SchemaObject> = {
  JsonRpcRequest: {
    type: 'object',
    required: ['jsonrpc', 'method'],
    properties: {
      jsonrpc: { type: 'string', enum: ['2.0'] },
      id: JSON_RPC_ID,
      method: {
        type: 'string',
        example: 'tools/call',
        description: 'initialize, tools/list, tools/call, ping, notifications/…',
      },
      params: {
        type: 'object',
        additionalProperties: true,
        description: 'Method parameters, e.g. {name, arguments} for tools/call',
      },
    },
  },
  JsonRpcError: {
    type: 'object',
    required: ['code', 'message'],
    properties: {
      code: { type: 'integer', example: -32601 },
      message: { type: 'string' },
      data: { description: 'Optional details' },
    },
  },
  JsonRpcResponse: {
    type: 'object',
    required: ['jsonrpc'],
    properties: {
      jsonrpc: { type: 'string', enum: ['2.0'] },
      id: JSON_RPC_RESPONSE_ID,
      result: {
        type: 'object',
        additionalProperties: true,
        description:
          'Present on success; e.g. {content, structuredContent, isError} for tools/call',
      },
      error: { $ref: '#/components/schemas/JsonRpcError' },
    },
  },
};

const JSON_RPC_REQUESTS: SchemaObject = {
  oneOf: [
    { $ref: '#/components/schemas/JsonRpcRequest' },
    { type: 'array', minItems: 1, items: { $ref: '#/components/schemas/JsonRpcRequest' } },
  ],
};

const JSON_RPC_RESPONSES: SchemaObject = {
  oneOf: [
    { $ref: '#/components/schemas/JsonRpcResponse' },
    { type: 'array', items: { $ref: '#/components/schemas/JsonRpcResponse' } },
  ],
};

const V1_ERROR = { 'application/json': { schema: { $ref: '#/components/schemas/V1Error' } } };

const MCP_PATH: PathItemObject = {
  post: {
    operationId: 'mcp',
    summary: 'MCP (JSON-RPC 2.0 over stateless Streamable HTTP) for agents',
    description:
      'One JSON-RPC message or a batch per request; no session (GET and DELETE answer 405). ' +
      'Send `Accept: application/json, text/event-stream`; answers are JSON. Tool errors come back ' +
      'as results with isError, protocol errors as JSON-RPC error objects.',
    tags: ['mcp'],
    security: [{ agentCredential: [] }],
    requestBody: {
      required: true,
      content: { 'application/json': { schema: JSON_RPC_REQUESTS } },
    },
    responses: {
      '200': {
        description: 'The JSON-RPC response(s)',
        content: { 'application/json': { schema: JSON_RPC_RESPONSES } },
      },
      '202': { description: 'Accepted: the body held only notifications or responses' },
      '400': {
        description: 'Not a JSON-RPC message (JSON-RPC parse or invalid-request error)',
        content: {
          'application/json': { schema: { $ref: '#/components/schemas/JsonRpcResponse' } },
        },
      },
      '401': {
        description: 'Missing, unknown or revoked agent credential',
        content: V1_ERROR,
      },
      '406': {
        description: 'Accept does not list application/json and text/event-stream',
        content: {
          'application/json': { schema: { $ref: '#/components/schemas/JsonRpcResponse' } },
        },
      },
      '429': { description: 'Over the credential rate limit; see Retry-After', content: V1_ERROR },
    },
  },
};

/** Adds POST /mcp unless a decorator already documents it. */
export function addMcpPath(doc: OpenAPIObject): void {
  doc.components = doc.components ?? {};
  doc.components.schemas = { ...(doc.components.schemas ?? {}), ...MCP_SCHEMAS };
  if (!doc.paths['/mcp']?.post) {
    doc.paths['/mcp'] = { ...(doc.paths['/mcp'] ?? {}), ...MCP_PATH };
  }
}
