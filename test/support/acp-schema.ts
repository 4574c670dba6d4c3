import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

import Ajv, { ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * Response validation for the ACP surface, against two sets of schemas:
 *
 * 1. Our own committed contract, `openapi/openapi.json` (OpenAPI 3.0). Always checked, so a fresh
 *    clone without `../shared` still validates every response. Each official `$def` the tests name
 *    is mapped (OWN_CONTRACT below) to the schema of the corresponding operation's response or
 *    component; OpenAPI's `nullable` is turned into JSON Schema before Ajv sees it.
 * 2. The official ACP JSON Schemas (2020-12), read from ACP_SCHEMA_DIR (default
 *    ../shared/acp/2026-04-17, relative to the repository root). Checked when that directory
 *    exists; otherwise skipped, and the jest global setup prints ACP_SKIP_LINE once per run.
 *    Responses are validated against `schema.agentic_checkout.json#/$defs/<Def>` (or the delegate
 *    payment bundle); strict is off because the bundle carries non-standard keywords.
 *
 * `.ci/run` sets ACP_SCHEMA_DIR and refuses to start without it, so CI never skips (2).
 */
const REPO_ROOT = resolve(__dirname, '..', '..');

export const ACP_SCHEMA_DIR = resolve(
  REPO_ROOT,
  process.env.ACP_SCHEMA_DIR ?? '../shared/acp/2026-04-17',
);

export const ACP_SKIP_LINE = 'skipped: official ACP schemas not found (set ACP_SCHEMA_DIR)';

export const ACP_CHECKOUT_SCHEMA = 'schema.agentic_checkout.json';
export const ACP_DELEGATE_SCHEMA = 'schema.delegate_payment.json';
const OFFICIAL_FILES = [ACP_CHECKOUT_SCHEMA, ACP_DELEGATE_SCHEMA] as const;
type OfficialFile = (typeof OFFICIAL_FILES)[number];

/** True when ACP_SCHEMA_DIR exists: the official checks then run (a missing file in it is an error). */
export function officialAcpSchemasAvailable(): boolean {
  return existsSync(ACP_SCHEMA_DIR);
}

// ---------------------------------------------------------------------------------------------
// Our contract: openapi/openapi.json

const OPENAPI_FILE = resolve(REPO_ROOT, 'openapi/openapi.json');
const OPENAPI_KEY = 'openapi.json';

/** JSON pointer (as a URI fragment) to the schema of one operation's response. */
function responseSchema(path: string, method: string, status: string): string {
  const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
  return `#/paths/${encodeURIComponent(esc(path))}/${method}/responses/${status}/content/${esc('application/json')}/schema`;
}

type OwnSchema = { $ref: string } | { allOf: object[] };

/**
 * Official $def → the schema our contract gives that response. Keys are `<file>#<Def>`. A test
 * naming a def missing here fails loudly: add the mapping rather than skipping the check.
 */
const OWN_CONTRACT: Record<string, OwnSchema> = {
  // POST /acp/checkout_sessions 201 (also update, get, cancel, complete: all AcpCheckoutSession).
  [`${ACP_CHECKOUT_SCHEMA}#CheckoutSession`]: {
    $ref: `${OPENAPI_KEY}${responseSchema('/acp/checkout_sessions', 'post', '201')}`,
  },
  // Official: CheckoutSessionBase + required `order`. Ours: the complete response, with its
  // `order` ("present once completed") required.
  [`${ACP_CHECKOUT_SCHEMA}#CheckoutSessionWithOrder`]: {
    allOf: [
      {
        $ref: `${OPENAPI_KEY}${responseSchema('/acp/checkout_sessions/{checkout_session_id}/complete', 'post', '200')}`,
      },
      { type: 'object', required: ['order'] },
    ],
  },
  [`${ACP_CHECKOUT_SCHEMA}#Error`]: { $ref: `${OPENAPI_KEY}#/components/schemas/AcpError` },
  // GET /acp/orders/{order_id} 200: the same Order the order webhooks carry (src/orders).
  [`${ACP_CHECKOUT_SCHEMA}#Order`]: {
    $ref: `${OPENAPI_KEY}${responseSchema('/acp/orders/{order_id}', 'get', '200')}`,
  },
  [`${ACP_CHECKOUT_SCHEMA}#DiscoveryResponse`]: {
    $ref: `${OPENAPI_KEY}${responseSchema('/.well-known/acp.json', 'get', '200')}`,
  },
  // POST /acp/agentic_commerce/delegate_payment 201 and its errors.
  [`${ACP_DELEGATE_SCHEMA}#DelegatePaymentResponse`]: {
    $ref: `${OPENAPI_KEY}${responseSchema('/acp/agentic_commerce/delegate_payment', 'post', '201')}`,
  },
  [`${ACP_DELEGATE_SCHEMA}#Error`]: { $ref: `${OPENAPI_KEY}#/components/schemas/AcpError` },
};

/**
 * OpenAPI 3.0 → JSON Schema, for what our document uses: `nullable: true` (beside `type`, and
 * beside `enum`, which must then list null too) becomes a `type` array; a nullable schema
 * without `type` (e.g. a $ref) or with allOf/oneOf/anyOf becomes anyOf [it, null]. `example` is
 * dropped.
 */
export function openApiToJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) {
    return node.map(openApiToJsonSchema);
  }
  if (!node || typeof node !== 'object') {
    return node;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
    if (k !== 'nullable' && k !== 'example') {
      out[k] = openApiToJsonSchema(v);
    }
  }
  if ((node as { nullable?: unknown }).nullable !== true) {
    return out;
  }
  // A nullable composition (`nullable, type: object, allOf: [$ref]`, as @nestjs/swagger writes a
  // nullable nested DTO) means "the referenced object or null", as generated clients read it.
  const composed = 'allOf' in out || 'oneOf' in out || 'anyOf' in out;
  if (typeof out.type === 'string' && !composed) {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) {
      out.enum = [...(out.enum as unknown[]), null];
    }
    return out;
  }
  return { anyOf: [out, { type: 'null' }] };
}

let ownAjv: Ajv | null = null;

function contractAjv(): Ajv {
  if (!ownAjv) {
    ownAjv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
    addFormats(ownAjv);
    const doc = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as Record<string, unknown>;
    ownAjv.addSchema(
      openApiToJsonSchema({
        paths: doc.paths,
        components: { schemas: (doc.components as { schemas: object }).schemas },
      }) as object,
      OPENAPI_KEY,
    );
  }
  return ownAjv;
}

const ownCompiled = new Map<string, ValidateFunction>();

/** Validator for the schema our contract (openapi/openapi.json) gives the response `defName` names. */
export function contractValidator(
  defName: string,
  file: OfficialFile = ACP_CHECKOUT_SCHEMA,
): ValidateFunction {
  const key = `${file}#${defName}`;
  let v = ownCompiled.get(key);
  if (!v) {
    const schema = OWN_CONTRACT[key];
    if (!schema) {
      throw new Error(
        `No mapping from the official ACP ${file}#/$defs/${defName} to openapi/openapi.json: add one to OWN_CONTRACT in test/support/acp-schema.ts`,
      );
    }
    v = contractAjv().compile(schema);
    ownCompiled.set(key, v);
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// The official schemas: ACP_SCHEMA_DIR

let ajv: Ajv2020 | null = null;
const compiled = new Map<string, ValidateFunction>();

export function acpAjv(): Ajv2020 {
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    for (const file of OFFICIAL_FILES) {
      ajv.addSchema(
        JSON.parse(readFileSync(resolve(ACP_SCHEMA_DIR, file), 'utf8')) as object,
        file,
      );
    }
  }
  return ajv;
}

/**
 * Validator for one definition of an official schema, e.g. `CheckoutSession`. Throws when the
 * official schemas are not there: callers wanting the skip behaviour use isValid/expectValid.
 */
export function acpValidator(
  defName: string,
  file: OfficialFile = ACP_CHECKOUT_SCHEMA,
): ValidateFunction {
  const ref = `${file}#/$defs/${defName}`;
  let v = compiled.get(ref);
  if (!v) {
    v = acpAjv().compile({ $ref: ref });
    compiled.set(ref, v);
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// What the tests call

interface Verdict {
  against: string;
  errors: ValidateFunction['errors'];
}

/** Every failed check for `body` as `defName`: our contract always, the official schema when present. */
function failures(defName: string, body: unknown, file: OfficialFile): Verdict[] {
  const out: Verdict[] = [];
  const own = contractValidator(defName, file);
  if (!own(body)) {
    out.push({
      against: `our contract (openapi/openapi.json, mapped from ${defName})`,
      errors: own.errors,
    });
  }
  if (officialAcpSchemasAvailable()) {
    const official = acpValidator(defName, file);
    if (!official(body)) {
      out.push({ against: `the official ACP ${file}#/$defs/${defName}`, errors: official.errors });
    }
  }
  return out;
}

/** True when `body` validates as `defName` against our contract and (when present) the official schema. */
export function isValid(
  defName: string,
  body: unknown,
  file: OfficialFile = ACP_CHECKOUT_SCHEMA,
): boolean {
  return failures(defName, body, file).length === 0;
}

/** Fails the test with Ajv's errors when `body` does not validate as `defName` (see isValid). */
export function expectValid(
  defName: string,
  body: unknown,
  file: OfficialFile = ACP_CHECKOUT_SCHEMA,
): void {
  const failed = failures(defName, body, file);
  if (failed.length > 0) {
    throw new Error(
      failed
        .map((f) => `Body is not valid against ${f.against}:\n${JSON.stringify(f.errors, null, 2)}`)
        .join('\n') + `\n${JSON.stringify(body, null, 2)}`,
    );
  }
}
