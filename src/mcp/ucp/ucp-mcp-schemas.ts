import type { Tool } from '@modelcontextprotocol/sdk/types.js';

import { UCP_VERSION } from '../../ucp/ucp-profile';

/**
 * The argument and result shapes of UCP's MCP binding of checkout (services/shopping/
 * mcp.openrpc.json at 2026-04-08): `meta` (the request metadata: `ucp-agent` always,
 * `idempotency-key` on complete and cancel), `id` (the session, not on create) and `checkout` (the
 * REST body). Written by hand as plain JSON Schema: the official schemas are not bundled here, so
 * `checkout` and the result are open objects that name the official schema they follow; our own
 * checks (src/ucp/ucp-checkout-input.ts) decide what is accepted.
 */

type JsonSchema = Record<string, unknown>;

const UCP_DEV = `https://ucp.dev/${UCP_VERSION}`;

const UCP_AGENT: JsonSchema = {
  type: 'object',
  description: "The platform's identity: UCP-Agent of the REST binding.",
  required: ['profile'],
  properties: {
    profile: {
      type: 'string',
      format: 'uri',
      description: "URL of the platform's UCP profile (https).",
    },
  },
};

const IDEMPOTENCY_KEY: JsonSchema = {
  type: 'string',
  format: 'uuid',
  description:
    'A UUID for retry safety: Idempotency-Key of the REST binding. The same key and checkout replay the stored answer (shared with REST); another checkout is refused.',
};

export function metaSchema(keyRequired: boolean): JsonSchema {
  return {
    type: 'object',
    description: 'Request metadata.',
    additionalProperties: true,
    required: keyRequired ? ['ucp-agent', 'idempotency-key'] : ['ucp-agent'],
    properties: { 'ucp-agent': UCP_AGENT, 'idempotency-key': IDEMPOTENCY_KEY },
  };
}

export const ID_SCHEMA: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 256,
  description: 'The checkout session id (cs_…).',
};

const LINE_ITEMS: JsonSchema = {
  type: 'array',
  minItems: 1,
  maxItems: 100,
  items: {
    type: 'object',
    required: ['item', 'quantity'],
    properties: {
      item: {
        type: 'object',
        required: ['id'],
        properties: { id: { type: 'string', description: 'A SKU the seller published.' } },
      },
      quantity: { type: 'integer', minimum: 1 },
    },
  },
};

const BUYER: JsonSchema = {
  type: 'object',
  description: 'Kept when it has an email.',
  properties: {
    email: { type: 'string', format: 'email' },
    first_name: { type: 'string' },
    last_name: { type: 'string' },
    phone_number: { type: 'string' },
  },
};

const PAYMENT: JsonSchema = {
  type: 'object',
  required: ['instruments'],
  properties: {
    instruments: {
      type: 'array',
      minItems: 1,
      description:
        'The selected (or only) instrument pays: {id, handler_id: svc_upi_mandate, type: svc_mandate, selected: true, credential: {type: svc_delegated_token, token: vt_…}}.',
      items: { type: 'object' },
    },
  },
};

const CHECKOUT_REF = `${UCP_DEV}/schemas/shopping/checkout.json`;

export const CHECKOUT_INPUT = {
  createOrUpdate: {
    type: 'object',
    description: `The checkout (${CHECKOUT_REF}, request form); no id. Amounts are integer paise.`,
    additionalProperties: true,
    required: ['line_items'],
    properties: { line_items: LINE_ITEMS, buyer: BUYER },
  },
  complete: {
    type: 'object',
    description: `The checkout (${CHECKOUT_REF}, complete form): payment with our handler's instrument.`,
    additionalProperties: true,
    required: ['payment'],
    properties: { payment: PAYMENT },
  },
} satisfies Record<string, JsonSchema>;

/**
 * checkout_result: a checkout (schemas/shopping/checkout.json) or an error_response
 * (types/error_response.json). Both carry `ucp`; the SDK client checks results against it.
 */
export const CHECKOUT_RESULT: Tool['outputSchema'] = {
  type: 'object',
  description: `${CHECKOUT_REF}, or ${UCP_DEV}/schemas/shopping/types/error_response.json when ucp.status is error`,
  required: ['ucp'],
  additionalProperties: true,
  properties: {
    ucp: {
      type: 'object',
      required: ['version'],
      properties: {
        version: { type: 'string' },
        status: { enum: ['success', 'error'] },
      },
    },
    id: { type: 'string' },
    status: { type: 'string' },
    messages: { type: 'array', items: { type: 'object' } },
  },
};

export function inputSchema(parts: {
  keyRequired: boolean;
  needsId: boolean;
  checkout?: JsonSchema;
}): Tool['inputSchema'] {
  const properties: Record<string, JsonSchema> = { meta: metaSchema(parts.keyRequired) };
  const required = ['meta'];
  if (parts.needsId) {
    properties.id = ID_SCHEMA;
    required.push('id');
  }
  if (parts.checkout) {
    properties.checkout = parts.checkout;
    required.push('checkout');
  }
  return { type: 'object', properties, required };
}
