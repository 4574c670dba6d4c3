import { AppError } from '../errors/app-error';
import { RequestValidationError } from '../errors/validation';
import type { IdentityKind } from './identity-numbers';

/** Codes of identity-number refusals; `aadhaar_not_collected` predates the edge check (forex). */
export const IDENTITY_CODES: Record<IdentityKind, string> = {
  aadhaar: 'aadhaar_not_collected',
  pan: 'pan_in_free_text',
};

/** What is wrong, without the field (MCP tool results prefix the argument's name). */
export const IDENTITY_MESSAGES: Record<IdentityKind, string> = {
  aadhaar:
    'Aadhaar is not collected: this holds what looks like an Aadhaar number (12 digits with a valid check digit, in any script, spacing or grouping); remove it. Nothing was stored and the value is not echoed',
  pan: 'A PAN is accepted only in the pan field of a forex file, where it is kept as a keyed hash: this holds what looks like a PAN (five letters, four digits, one letter); remove it. Nothing was stored and the value is not echoed',
};

function where(param: string): string {
  if (param === 'path') {
    return 'The request path';
  }
  if (param === 'Idempotency-Key' || param === 'UCP-Agent') {
    return `The ${param} header`;
  }
  return param;
}

/**
 * A refusal at the edge (identity-edge.ts): 400 naming the field (a JSONPath such as `$.notes`
 * or `$.query.q`, `path`, or the header name), never the value; a key holding one is named by
 * its object (`a key of $.metadata`). A RequestValidationError, so it
 * is never stored against an Idempotency-Key.
 */
export function identityRefused(kind: IdentityKind, param: string, inKey = false): AppError {
  const at = inKey ? `a key of ${param}` : where(param);
  const message = IDENTITY_MESSAGES[kind].replace(/^(.*?): this holds/, `$1: ${at} holds`);
  return new RequestValidationError(400, 'invalid_request', IDENTITY_CODES[kind], message, param);
}
