import canonicalizeLib from 'canonicalize';

import { RequestValidationError } from './errors/validation';

/**
 * RFC 8785 (JCS) canonical form. undefined (no body) canonicalises to the empty string.
 *
 * JCS has no form for NaN or ±Infinity and the library recurses once per nesting level. The HTTP
 * pipeline (hostile-input.ts) already refuses such bodies before any handler; should one still
 * reach a caller hashing or signing a request body, it is a 400 (invalid, param `$`), not a 500.
 */
export function canonicalJson(value: unknown): string {
  if (value === undefined) {
    return '';
  }
  try {
    return canonicalizeLib(value) ?? '';
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new RequestValidationError(
      400,
      'invalid_request',
      'invalid',
      err instanceof RangeError
        ? 'The body is nested too deeply to be canonicalised'
        : `The body cannot be canonicalised (RFC 8785): ${message}`,
      '$',
    );
  }
}
