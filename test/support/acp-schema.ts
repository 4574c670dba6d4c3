import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * The official ACP JSON Schemas (2020-12), read at test time from ACP_SCHEMA_DIR (default
 * ../shared/acp/2026-04-17, relative to the repository root). Responses are validated against
 * `schema.agentic_checkout.json#/$defs/<Def>`; strict is off because the bundle carries
 * non-standard keywords (examples inside properties).
 */
export const ACP_SCHEMA_DIR = resolve(
  process.cwd(),
  process.env.ACP_SCHEMA_DIR ?? '../shared/acp/2026-04-17',
);

const CHECKOUT = 'schema.agentic_checkout.json';
const DELEGATE = 'schema.delegate_payment.json';

let ajv: Ajv2020 | null = null;
const compiled = new Map<string, ValidateFunction>();

export function acpAjv(): Ajv2020 {
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    for (const file of [CHECKOUT, DELEGATE]) {
      ajv.addSchema(
        JSON.parse(readFileSync(resolve(ACP_SCHEMA_DIR, file), 'utf8')) as object,
        file,
      );
    }
  }
  return ajv;
}

/** Validator for one definition of the checkout schema, e.g. `CheckoutSession`. */
export function acpValidator(defName: string, file = CHECKOUT): ValidateFunction {
  const ref = `${file}#/$defs/${defName}`;
  let v = compiled.get(ref);
  if (!v) {
    v = acpAjv().compile({ $ref: ref });
    compiled.set(ref, v);
  }
  return v;
}

export function isValid(defName: string, body: unknown): boolean {
  return acpValidator(defName)(body);
}

/** Fails the test with Ajv's errors when `body` does not validate as `defName`. */
export function expectValid(defName: string, body: unknown): void {
  const v = acpValidator(defName);
  if (!v(body)) {
    throw new Error(
      `Body is not a valid ACP ${defName}:\n${JSON.stringify(v.errors, null, 2)}\n${JSON.stringify(body, null, 2)}`,
    );
  }
}
