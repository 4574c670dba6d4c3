import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { SUPPORTED_ACP_VERSIONS } from '../../common/auth/acp.guard';

/** A JSON Schema object as served in tools/list. */
export type JsonSchema = Record<string, unknown>;

/**
 * Our committed contract, generated from the checkout DTOs and controller decorators (`npm run
 * openapi`; test/unit/openapi/openapi-fresh.spec.ts keeps it equal to the live document). The
 * same relative path works from src/mcp/checkout (ts-node, Jest) and dist/mcp/checkout.
 */
export const OPENAPI_FILE = join(__dirname, '..', '..', '..', 'openapi', 'openapi.json');

interface OpenApiDoc {
  paths: Record<string, Record<string, { operationId?: string; requestBody?: unknown }>>;
  components?: { schemas?: Record<string, unknown> };
}

const REF_PREFIX = '#/components/schemas/';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Inlines every `$ref` (the binding: tool schemas are served bundled) and turns OpenAPI 3.0
 * dialect into JSON Schema: `nullable` becomes a `null` type, `example` becomes `examples`.
 */
export function bundle(
  node: unknown,
  components: Record<string, unknown>,
  seen: string[] = [],
): unknown {
  if (Array.isArray(node)) {
    return node.map((n) => bundle(n, components, seen));
  }
  if (!isObject(node)) {
    return node;
  }
  const ref = node.$ref;
  if (typeof ref === 'string') {
    const name = ref.startsWith(REF_PREFIX) ? ref.slice(REF_PREFIX.length) : undefined;
    if (name === undefined || !(name in components)) {
      throw new Error(`openapi.json: cannot resolve ${ref}`);
    }
    if (seen.includes(name)) {
      throw new Error(`openapi.json: recursive schema ${name} cannot be bundled`);
    }
    const siblings: JsonSchema = { ...node };
    delete siblings.$ref;
    const target = bundle(components[name], components, [...seen, name]) as JsonSchema;
    return Object.keys(siblings).length === 0
      ? target
      : { ...target, ...(bundle(siblings, components, seen) as JsonSchema) };
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'nullable' || key === 'example') {
      continue;
    }
    // `properties` maps names to schemas: a property called "example" is not the keyword.
    out[key] =
      key === 'properties' && isObject(value)
        ? Object.fromEntries(
            Object.entries(value).map(([k, v]) => [k, bundle(v, components, seen)]),
          )
        : bundle(value, components, seen);
  }
  if (node.example !== undefined) {
    out.examples = [node.example];
  }
  if (node.nullable === true) {
    if (typeof out.type === 'string') {
      out.type = [out.type, 'null'];
    } else {
      return { anyOf: [out, { type: 'null' }] };
    }
  }
  return out;
}

/** The bundled JSON Schema of one REST operation's JSON request body, found by operationId. */
export function requestBodySchema(doc: OpenApiDoc, operationId: string): JsonSchema {
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item)) {
      if (isObject(op) && op.operationId === operationId) {
        const body = op.requestBody;
        const schema =
          isObject(body) && isObject(body.content) && isObject(body.content['application/json'])
            ? body.content['application/json'].schema
            : undefined;
        if (!isObject(schema)) {
          throw new Error(`openapi.json: ${operationId} has no JSON request body schema`);
        }
        return bundle(schema, doc.components?.schemas ?? {}) as JsonSchema;
      }
    }
  }
  throw new Error(`openapi.json: no operation ${operationId}`);
}

export function loadOpenApi(file = OPENAPI_FILE): OpenApiDoc {
  return JSON.parse(readFileSync(file, 'utf8')) as OpenApiDoc;
}

/** ACP's protocol headers as `meta` fields (docs/mcp-binding.md "Header Mapping"). Open object. */
export const META_SCHEMA: JsonSchema = {
  type: 'object',
  description:
    'Protocol metadata, the ACP HTTP headers as fields. Unknown fields are ignored. Authentication is not here: it is the Authorization header of the MCP connection.',
  properties: {
    api_version: {
      type: 'string',
      enum: [...SUPPORTED_ACP_VERSIONS],
      description: 'API-Version header (required).',
    },
    idempotency_key: {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      description:
        'Idempotency-Key header, optional here: with it, the same key and payload replay the stored result, another payload is refused, and a concurrent twin is refused as in flight (same store as REST, kept 24 h).',
    },
    request_id: { type: 'string', description: 'Request-Id header (accepted, not used).' },
    user_agent: { type: 'string', description: 'User-Agent header (accepted, not used).' },
    accept_language: {
      type: 'string',
      description: 'Accept-Language header (accepted; we answer in en-IN).',
    },
    signature: {
      type: 'string',
      description:
        'Accepted, not verified: sign the HTTP request of the MCP connection instead (Signature and Timestamp headers).',
    },
    timestamp: { type: 'string', description: 'Accepted, not verified (see signature).' },
  },
  required: ['api_version'],
  additionalProperties: true,
};

export const ID_SCHEMA: JsonSchema = {
  type: 'string',
  minLength: 1,
  description: 'The checkout session id (cs_…), the {checkout_session_id} of the REST path.',
};
