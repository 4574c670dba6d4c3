import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

import { openApiToJsonSchema } from './acp-schema';

/**
 * Validates a real response against the schema openapi/openapi.json gives that operation and status
 * (any route, /acp or /v1), loading the contract the way acp-schema.ts does: OpenAPI 3.0
 * `nullable` turned into JSON Schema by openApiToJsonSchema, Ajv with formats.
 */
const OPENAPI_FILE = resolve(__dirname, '..', '..', 'openapi', 'openapi.json');
const KEY = 'openapi.json';

let ajv: Ajv | null = null;
const compiled = new Map<string, ValidateFunction>();

function contract(): Ajv {
  if (!ajv) {
    ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
    addFormats(ajv);
    const doc = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as {
      paths: object;
      components: { schemas: object };
    };
    ajv.addSchema(
      openApiToJsonSchema({
        paths: doc.paths,
        components: { schemas: doc.components.schemas },
      }) as object,
      KEY,
    );
  }
  return ajv;
}

function pointer(path: string, method: string, status: number, mediaType: string): string {
  const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
  return `${KEY}#/paths/${encodeURIComponent(esc(path))}/${method.toLowerCase()}/responses/${status}/content/${esc(mediaType)}/schema`;
}

/**
 * Throws unless `body` is valid for `method path` answering `status` (a path template such as
 * /acp/checkout_sessions/{checkout_session_id}). A status the contract does not list fails too.
 */
export function expectContractResponse(
  path: string,
  method: string,
  status: number,
  body: unknown,
  mediaType = 'application/json',
): void {
  const key = `${method} ${path} ${status} ${mediaType}`;
  let validate = compiled.get(key);
  if (!validate) {
    try {
      validate = contract().compile({ $ref: pointer(path, method, status, mediaType) });
    } catch (err) {
      throw new Error(
        `openapi/openapi.json has no ${mediaType} schema for ${method.toUpperCase()} ${path} ${status}: ${(err as Error).message}`,
      );
    }
    compiled.set(key, validate);
  }
  if (!validate(body)) {
    throw new Error(
      `${method.toUpperCase()} ${path} ${status}: body does not match openapi/openapi.json:\n` +
        `${JSON.stringify(validate.errors, null, 2)}\n${JSON.stringify(body, null, 2)}`,
    );
  }
}

type OpenApiDoc = {
  paths: Record<string, Record<string, { responses?: Record<string, { content?: object }> }>>;
};

let rawDoc: OpenApiDoc | null = null;

function openApiDoc(): OpenApiDoc {
  rawDoc ??= JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as OpenApiDoc;
  return rawDoc;
}

/** The path templates of openapi/openapi.json (e.g. /ucp/checkout-sessions/{id}). */
export function contractPaths(): string[] {
  return Object.keys(openApiDoc().paths);
}

/**
 * The schema openapi/openapi.json gives `method path` answering `status` in `mediaType`, as written
 * (OpenAPI, not converted), or undefined when the contract does not list that answer.
 */
export function contractResponseSchema(
  path: string,
  method: string,
  status: number,
  mediaType = 'application/json',
): unknown {
  const content = openApiDoc().paths[path]?.[method.toLowerCase()]?.responses?.[String(status)]
    ?.content as Record<string, { schema?: unknown }> | undefined;
  return content?.[mediaType]?.schema;
}
