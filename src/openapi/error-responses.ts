import type {
  OpenAPIObject,
  OperationObject,
  ResponsesObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/**
 * Adds the two error shapes to the contract and documents, on every operation, the error
 * statuses the shared pipeline can produce. Route-specific codes are listed in each operation's
 * description and in docs/security.md "Errors"; the shapes are the same everywhere.
 */
const ACP_ERROR = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'code', 'message'],
  properties: {
    type: {
      type: 'string',
      enum: ['invalid_request', 'processing_error', 'service_unavailable', 'rate_limit_exceeded'],
    },
    code: { type: 'string', example: 'idempotency_conflict' },
    message: { type: 'string' },
    param: {
      type: 'string',
      description: 'RFC 9535 JSONPath of the offending field, or a header name',
      example: '$.line_items[0].id',
    },
    supported_versions: {
      type: 'array',
      items: { type: 'string' },
      description: 'Only on API-Version errors',
    },
  },
};

const V1_ERROR = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['type', 'code', 'message', 'request_id'],
      properties: {
        type: {
          type: 'string',
          enum: [
            'invalid_request',
            'processing_error',
            'service_unavailable',
            'rate_limit_exceeded',
          ],
        },
        code: { type: 'string', example: 'invalid' },
        message: { type: 'string' },
        param: { type: 'string', example: '$.offers[0].unit_paise' },
        request_id: { type: 'string', example: 'req_3f…' },
      },
    },
  },
};

const STATUS_TEXT: Record<string, string> = {
  '400':
    'Invalid request: validation (param names the field), missing/unsupported API-Version, missing Idempotency-Key, or a business rule',
  '401': 'Missing, unknown or revoked credential; invalid_signature / stale_timestamp',
  '402': 'requires_buyer_review: the person has not authorised the mandate yet',
  '403':
    'Credential of the wrong kind (wrong_credential) or protocol key of the wrong role (wrong_role)',
  '404': 'Not found, or not visible to this caller',
  '405': 'invalid_state: cancel of a completed or canceled session',
  '409': 'idempotency_in_flight (with Retry-After), or a state conflict',
  '413': 'request_too_large',
  '415': 'unsupported_media_type: bodies must be application/json',
  '422': 'idempotency_conflict: same Idempotency-Key, different body',
  '429':
    'too_many_requests: over the rate limit (per credential, or per address on public routes); see Retry-After and RateLimit-* headers',
  '500': 'processing_error (never stored against an Idempotency-Key)',
  '503':
    'service_unavailable: PostgreSQL (or, for /health, Redis) is unreachable, or a transaction conflict persisted; retry after Retry-After',
};

function errorStatuses(path: string, method: string, op: OperationObject): string[] {
  const statuses = ['400', '404', '429', '500', '503'];
  const secured = (op.security ?? []).length > 0;
  if (secured) {
    statuses.push('401', '403');
  }
  if (method === 'post' || method === 'put') {
    statuses.push('409', '413', '415', '422');
  }
  if (path.endsWith('/complete')) {
    statuses.push('402');
  }
  if (path.endsWith('/cancel') && path.startsWith('/acp')) {
    statuses.push('405');
  }
  return statuses.sort();
}

export function addErrorResponses(doc: OpenAPIObject): OpenAPIObject {
  doc.components = doc.components ?? {};
  doc.components.schemas = {
    ...(doc.components.schemas ?? {}),
    AcpError: ACP_ERROR,
    V1Error: V1_ERROR,
  };
  for (const [path, item] of Object.entries(doc.paths)) {
    // /mcp documents its own (JSON-RPC) answers; every other route outside /acp answers errors
    // in the /v1 shape (error-body.ts), and public documents only fail by rate limit or outage.
    if (path === '/mcp') {
      continue;
    }
    const schema = path.startsWith('/acp') ? 'AcpError' : 'V1Error';
    const pipeline = path.startsWith('/acp') || path.startsWith('/v1');
    for (const method of ['get', 'post', 'put', 'delete'] as const) {
      const op = item[method];
      if (!op) {
        continue;
      }
      const responses: ResponsesObject = op.responses ?? {};
      for (const status of pipeline ? errorStatuses(path, method, op) : ['429', '500', '503']) {
        responses[status] ??= {
          description: STATUS_TEXT[status],
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
        };
      }
      op.responses = responses;
    }
  }
  return doc;
}
