import { applyDecorators } from '@nestjs/common';
import { ApiExtension, ApiResponse } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

import { Idempotent } from '../common/idempotency/idempotent.decorator';
import { UCP_HANDLER_NAME } from './ucp-profile';

/**
 * The UCP answers as openapi/openapi.json describes them (docs/ucp.md "Contract"): JSON Schema
 * (OpenAPI 3.0) of what our mappers send (ucp-checkout.mapper.ts, orders/ucp-order.mapper.ts,
 * ucp-profile.ts) and of the error_response ucp-errors.ts renders. Objects whose keys the mapper
 * fixes are closed (additionalProperties: false); only maps keyed by capability / handler name
 * and the handler's own JSON Schema are open. test/support/ucp-contract.ts checks every UCP answer
 * of the e2e tests against these.
 */

const str: SchemaObject = { type: 'string' };
const int: SchemaObject = { type: 'integer' };
const uri: SchemaObject = { type: 'string', format: 'uri' };
const dateTime: SchemaObject = { type: 'string', format: 'date-time' };

function closed(required: string[], properties: Record<string, SchemaObject>): SchemaObject {
  return { type: 'object', required, additionalProperties: false, properties };
}

const SEVERITIES = [
  'recoverable',
  'requires_buyer_input',
  'requires_buyer_review',
  'unrecoverable',
];

/** ucp-errors.ts ucpErrorOf: `{ucp: {version, status: error, capabilities?}, messages: [one]}`. */
export const UCP_ERROR_RESPONSE: SchemaObject = {
  ...closed(['ucp', 'messages'], {
    ucp: closed(['version', 'status'], {
      version: str,
      status: { type: 'string', enum: ['error'] },
      capabilities: {
        type: 'object',
        description: 'Empty: sent only with capabilities_incompatible',
        maxProperties: 0,
      },
    }),
    messages: {
      type: 'array',
      minItems: 1,
      items: closed(['type', 'code', 'content', 'severity'], {
        type: { type: 'string', enum: ['error'] },
        code: str,
        content: str,
        severity: { type: 'string', enum: SEVERITIES },
        path: { type: 'string', description: 'JSONPath of the request member refused' },
      }),
    },
  }),
  description: 'UCP error_response (docs/ucp.md "Errors")',
};

const TOTAL = closed(['type', 'amount'], {
  type: str,
  display_text: str,
  amount: { type: 'integer', description: 'Minor units (paise)' },
});
const ITEM = closed(['id', 'title', 'price'], { id: str, title: str, price: int });
const VERSIONED = closed(['version'], { version: str });

const HANDLER_CONFIG = closed(['environment', 'delegate_payment_url', 'credential_type', 'rails'], {
  environment: { type: 'string', enum: ['sandbox', 'production'] },
  delegate_payment_url: uri,
  credential_type: { type: 'string', enum: ['svc_delegated_token'] },
  rails: { type: 'array', minItems: 1, items: str },
  merchant_id: { type: 'string', description: 'In checkout responses only' },
});

function handler(withMerchant: boolean): SchemaObject {
  return closed(['id', 'version', 'spec', 'schema', 'available_instruments', 'config'], {
    id: str,
    version: str,
    spec: uri,
    schema: uri,
    available_instruments: {
      type: 'array',
      minItems: 1,
      items: closed(['type'], { type: str }),
    },
    config: withMerchant
      ? { ...HANDLER_CONFIG, required: [...(HANDLER_CONFIG.required ?? []), 'merchant_id'] }
      : HANDLER_CONFIG,
  });
}

function handlers(withMerchant: boolean): SchemaObject {
  return closed([UCP_HANDLER_NAME], {
    [UCP_HANDLER_NAME]: { type: 'array', minItems: 1, items: handler(withMerchant) },
  });
}

const MESSAGE = closed(['type', 'content', 'content_type'], {
  type: { type: 'string', enum: ['error', 'warning', 'info'] },
  code: { type: 'string', description: 'Always present on error and warning messages' },
  content: str,
  content_type: { type: 'string', enum: ['plain', 'markdown'] },
  severity: { type: 'string', enum: SEVERITIES, description: 'Error messages only' },
  path: str,
});

/** ucp-checkout.mapper.ts toUcpCheckout. */
export const UCP_CHECKOUT: SchemaObject = {
  ...closed(
    ['ucp', 'id', 'status', 'currency', 'line_items', 'totals', 'messages', 'links', 'expires_at'],
    {
      ucp: closed(['version', 'status', 'capabilities', 'payment_handlers'], {
        version: str,
        status: { type: 'string', enum: ['success'] },
        capabilities: {
          type: 'object',
          description: 'The negotiated capabilities, by name',
          additionalProperties: { type: 'array', items: VERSIONED },
        },
        payment_handlers: handlers(true),
      }),
      id: str,
      status: {
        type: 'string',
        enum: ['incomplete', 'ready_for_complete', 'complete_in_progress', 'completed', 'canceled'],
      },
      currency: { type: 'string', pattern: '^[A-Z]{3}$' },
      line_items: {
        type: 'array',
        items: closed(['id', 'item', 'quantity', 'totals'], {
          id: str,
          item: ITEM,
          quantity: { type: 'integer', minimum: 1 },
          totals: { type: 'array', items: TOTAL },
        }),
      },
      totals: { type: 'array', items: TOTAL },
      messages: { type: 'array', items: MESSAGE },
      links: { type: 'array', items: closed(['type', 'url'], { type: str, url: uri, title: str }) },
      expires_at: dateTime,
      buyer: {
        type: 'object',
        additionalProperties: false,
        properties: { first_name: str, last_name: str, email: str, phone_number: str },
      },
      order: closed(['id', 'permalink_url'], { id: str, permalink_url: uri }),
      'com.svc.receipt': closed(['id'], { id: str }),
    },
  ),
  description: 'UCP checkout (docs/ucp.md "Checkout")',
};

const LINE_REFS: SchemaObject = {
  type: 'array',
  items: closed(['id', 'quantity'], { id: str, quantity: int }),
};

/** orders/ucp-order.mapper.ts toUcpOrder. */
export const UCP_ORDER: SchemaObject = {
  ...closed(
    [
      'ucp',
      'id',
      'checkout_id',
      'permalink_url',
      'currency',
      'line_items',
      'fulfillment',
      'adjustments',
      'totals',
    ],
    {
      ucp: closed(['version', 'status', 'capabilities'], {
        version: str,
        status: { type: 'string', enum: ['success'] },
        capabilities: {
          type: 'object',
          additionalProperties: { type: 'array', items: VERSIONED },
        },
      }),
      id: str,
      checkout_id: str,
      permalink_url: uri,
      currency: { type: 'string', enum: ['INR'] },
      line_items: {
        type: 'array',
        items: closed(['id', 'item', 'quantity', 'totals', 'status'], {
          id: str,
          item: ITEM,
          quantity: closed(['original', 'total', 'fulfilled'], {
            original: int,
            total: int,
            fulfilled: int,
          }),
          totals: { type: 'array', items: TOTAL },
          status: { type: 'string', enum: ['removed', 'fulfilled', 'partial', 'processing'] },
        }),
      },
      fulfillment: closed(['expectations', 'events'], {
        expectations: {
          type: 'array',
          items: closed(
            ['id', 'line_items', 'method_type', 'destination', 'description', 'fulfillable_on'],
            {
              id: str,
              line_items: LINE_REFS,
              method_type: str,
              destination: { type: 'object', additionalProperties: false, properties: {} },
              description: str,
              fulfillable_on: str,
            },
          ),
        },
        events: {
          type: 'array',
          items: closed(['id', 'occurred_at', 'type', 'line_items', 'description'], {
            id: str,
            occurred_at: dateTime,
            type: str,
            line_items: LINE_REFS,
            tracking_url: uri,
            description: str,
          }),
        },
      }),
      adjustments: {
        type: 'array',
        items: closed(['id', 'type', 'occurred_at', 'status'], {
          id: str,
          type: str,
          occurred_at: dateTime,
          status: { type: 'string', enum: ['pending', 'completed', 'failed'] },
          totals: { type: 'array', items: TOTAL },
          description: str,
        }),
      },
      totals: { type: 'array', items: TOTAL },
    },
  ),
  description: 'UCP order (docs/ucp.md "Orders")',
};

const SERVICE = closed(['version', 'spec', 'transport', 'endpoint', 'schema'], {
  version: str,
  spec: uri,
  transport: { type: 'string', enum: ['rest', 'mcp'] },
  endpoint: uri,
  schema: uri,
});
const CAPABILITY = closed(['version', 'spec', 'schema'], { version: str, spec: uri, schema: uri });

/** ucp-profile.ts businessProfile. */
export const UCP_BUSINESS_PROFILE: SchemaObject = {
  ...closed(['ucp'], {
    ucp: closed(['version', 'services', 'capabilities', 'payment_handlers'], {
      version: str,
      services: {
        type: 'object',
        minProperties: 1,
        additionalProperties: { type: 'array', minItems: 1, items: SERVICE },
      },
      capabilities: {
        type: 'object',
        minProperties: 1,
        additionalProperties: { type: 'array', minItems: 1, items: CAPABILITY },
      },
      payment_handlers: handlers(false),
    }),
    signing_keys: {
      type: 'array',
      items: {
        type: 'object',
        required: ['kid', 'kty'],
        description: 'Public JWK',
        properties: { kid: str, kty: str },
        additionalProperties: { type: 'string' },
      },
    },
  }),
  description: 'UCP business profile (docs/ucp.md "Discovery")',
};

/** ucp-profile.ts ucpHandlerSpec. */
export const UCP_HANDLER_SPEC: SchemaObject = closed(
  [
    'name',
    'id',
    'version',
    'schema',
    'participants',
    'prerequisites',
    'acquisition',
    'processing',
    'instruments_refused',
  ],
  {
    name: { type: 'string', enum: [UCP_HANDLER_NAME] },
    id: str,
    version: str,
    schema: uri,
    participants: closed(['business', 'platform'], { business: str, platform: str }),
    prerequisites: str,
    acquisition: closed(['method', 'url', 'summary'], { method: str, url: uri, summary: str }),
    processing: str,
    instruments_refused: { type: 'array', items: str },
  },
);

/** ucp-profile.ts ucpHandlerSchema: a JSON Schema document; its $defs are open JSON Schemas. */
export const UCP_HANDLER_SCHEMA: SchemaObject = closed(
  ['$schema', '$id', 'name', 'version', 'title', 'description', '$defs'],
  {
    $schema: uri,
    $id: uri,
    name: { type: 'string', enum: [UCP_HANDLER_NAME] },
    version: str,
    title: str,
    description: str,
    $defs: {
      type: 'object',
      required: ['config', 'available_instrument', 'credential', 'instrument'],
      additionalProperties: false,
      properties: Object.fromEntries(
        ['config', 'available_instrument', 'credential', 'instrument'].map((k) => [
          k,
          { type: 'object', additionalProperties: true },
        ]),
      ),
    },
  },
);

const STATUS_TEXT: Record<number, string> = {
  400: 'UCP-Agent, Idempotency-Key or body refused (error_response)',
  401: 'Missing or invalid protocol key or request signature (error_response)',
  403: 'The key is not a merchant protocol key (error_response)',
  404: 'No such resource for this merchant (error_response)',
  409: 'Idempotency-Key in flight or reused with another body, or the session state forbids it (error_response)',
  422: 'Platform profile malformed or of an unsupported version (error_response)',
  424: 'Platform profile unreachable (error_response)',
  429: 'Rate limited; Retry-After (error_response)',
  500: 'Internal error (error_response)',
  503: 'Temporarily unavailable; Retry-After (error_response)',
};

const ERROR_CONTENT = { schema: UCP_ERROR_RESPONSE };

function errors(statuses: number[]) {
  return statuses.map((status) =>
    ApiResponse({ status, description: STATUS_TEXT[status], ...ERROR_CONTENT }),
  );
}

/** Refusals every negotiated /ucp route (UcpRoute) can answer, besides its own. */
const ROUTE_ERRORS = [400, 401, 403, 422, 424, 429, 500, 503];

/**
 * A UCP REST route's answers: `success` with `schema`; a negotiation that finds no common
 * capability is a 200 error_response (capabilities_incompatible), so a 200 is either; on create
 * also an unknown item (item_unavailable, docs/ucp.md "Errors").
 */
export function UcpResponses(
  success: 200 | 201,
  schema: SchemaObject,
  options: { notFound: boolean; write: boolean },
) {
  const decorators = [
    ...errors(
      [...ROUTE_ERRORS, ...(options.notFound ? [404] : []), ...(options.write ? [409] : [])].sort(
        (a, b) => a - b,
      ),
    ),
    success === 200
      ? ApiResponse({
          status: 200,
          description:
            'The resource, or capabilities_incompatible (error_response, ucp.status error)',
          schema: { oneOf: [schema, UCP_ERROR_RESPONSE] },
        })
      : ApiResponse({
          status: 200,
          description:
            'A business outcome (error_response, ucp.status error): capabilities_incompatible, or item_unavailable (an item the seller does not offer); nothing created',
          ...ERROR_CONTENT,
        }),
  ];
  if (success === 201) {
    decorators.push(ApiResponse({ status: 201, description: 'Created', schema }));
  }
  return applyDecorators(...decorators);
}

/**
 * A UCP write: the IdempotencyInterceptor (Idempotent) with Idempotency-Key required, as UCP's
 * REST binding has it on create, update, complete and cancel (the interceptor refuses a /ucp write
 * without one: 400 idempotency_key_required).
 */
export function UcpWrite() {
  return applyDecorators(
    Idempotent(),
    // src/openapi/operations.ts marks the documented Idempotency-Key header required.
    ApiExtension('x-idempotency-key-required', true),
  );
}

/** Public UCP documents (discovery): no auth, only rate limit and outages. */
export function UcpDocumentResponses(schema: SchemaObject, description: string) {
  return applyDecorators(
    ApiResponse({ status: 200, description, schema }),
    ...errors([429, 500, 503]),
  );
}
