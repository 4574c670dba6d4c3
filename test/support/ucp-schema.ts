import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * Validation against the official UCP 2026-04-08 JSON Schemas, read from UCP_SCHEMA_DIR (default
 * ../shared/ucp/2026-04-08, relative to the repository root). When that directory is absent (a
 * fresh clone) the official checks are skipped with one console line per test process; the tests
 * still assert our own behaviour and check every response against openapi/openapi.json
 * (test/support/ucp-contract.ts). `.ci/run` sets UCP_SCHEMA_DIR and refuses to start without the
 * schemas, so CI never skips.
 */
const REPO_ROOT = resolve(__dirname, '..', '..');

export const UCP_SCHEMA_DIR = resolve(
  REPO_ROOT,
  process.env.UCP_SCHEMA_DIR ?? '../shared/ucp/2026-04-08',
);

export const UCP_SKIP_LINE = 'skipped: official UCP schemas not found (set UCP_SCHEMA_DIR)';

export const UCP_SCHEMA_IDS = {
  profile: 'https://ucp.dev/schemas/discovery/profile.json',
  checkout: 'https://ucp.dev/schemas/shopping/checkout.json',
  error: 'https://ucp.dev/schemas/shopping/types/error_response.json',
} as const;

export type UcpSchemaName = keyof typeof UCP_SCHEMA_IDS;

export function officialUcpSchemasAvailable(): boolean {
  return existsSync(UCP_SCHEMA_DIR);
}

let skipPrinted = false;

/**
 * True when UCP_SCHEMA_DIR exists. Otherwise prints UCP_SKIP_LINE, once per test process (shared
 * by every UCP validator, test/support/ucp-order-platform.ts too), and returns false.
 */
export function ucpSchemasOrSkip(): boolean {
  if (officialUcpSchemasAvailable()) {
    return true;
  }
  if (!skipPrinted) {
    skipPrinted = true;
    console.log(UCP_SKIP_LINE);
  }
  return false;
}

function jsonFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) {
      return jsonFiles(full);
    }
    return name.endsWith('.json') ? [full] : [];
  });
}

let ajv: Ajv2020 | null = null;
const compiled = new Map<UcpSchemaName, ValidateFunction>();

function ucpAjv(): Ajv2020 {
  if (!ajv) {
    // strict off: the schemas carry UCP's own keywords (ucp_request, ucp_response, name, requires).
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    for (const sub of ['schemas', 'discovery']) {
      for (const file of jsonFiles(join(UCP_SCHEMA_DIR, sub))) {
        let text = readFileSync(file, 'utf8');
        if (file.endsWith(join('discovery', 'profile_schema.json'))) {
          // Its "../schemas/ucp.json" resolves against its $id (…/schemas/discovery/) to
          // …/schemas/schemas/ucp.json, which no file claims: point it at ucp.json's own $id.
          text = text.split('"../schemas/ucp.json').join('"https://ucp.dev/schemas/ucp.json');
        }
        ajv.addSchema(JSON.parse(text) as object);
      }
    }
  }
  return ajv;
}

function validator(name: UcpSchemaName): ValidateFunction {
  let v = compiled.get(name);
  if (!v) {
    v = ucpAjv().getSchema(UCP_SCHEMA_IDS[name]);
    if (!v) {
      throw new Error(`No UCP schema ${UCP_SCHEMA_IDS[name]} in ${UCP_SCHEMA_DIR}`);
    }
    compiled.set(name, v);
  }
  return v;
}

/**
 * Fails the test with Ajv's errors when `body` is not valid against the official UCP schema
 * `name`. Returns false (after printing UCP_SKIP_LINE once) when the schemas are absent.
 */
export function expectValidUcp(name: UcpSchemaName, body: unknown): boolean {
  if (!ucpSchemasOrSkip()) {
    return false;
  }
  const v = validator(name);
  if (!v(body)) {
    throw new Error(
      `Body is not valid against the official UCP ${UCP_SCHEMA_IDS[name]}:\n${JSON.stringify(v.errors, null, 2)}\n${JSON.stringify(body, null, 2)}`,
    );
  }
  return true;
}

/** True when `body` is valid against `name` (or the schemas are absent). */
export function isValidUcp(name: UcpSchemaName, body: unknown): boolean {
  return !officialUcpSchemasAvailable() || validator(name)(body) === true;
}
