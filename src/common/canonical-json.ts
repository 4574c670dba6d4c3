import canonicalizeLib from 'canonicalize';

/** RFC 8785 (JCS) canonical form. undefined (no body) canonicalises to the empty string. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) {
    return '';
  }
  return canonicalizeLib(value) ?? '';
}
