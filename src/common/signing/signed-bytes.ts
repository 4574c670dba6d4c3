import { canonicalJson } from '../canonical-json';

/**
 * The bytes a caller signs (our profile; docs/security.md "Signing requests", docs/acp.md §3):
 *   Timestamp "\n" METHOD "\n" path-with-query "\n" JCS(body)
 * A request without a body (GET, bodiless cancel) signs the empty string as its body part.
 */
export function signedBytes(
  timestamp: string,
  method: string,
  pathWithQuery: string,
  body: unknown,
): Buffer {
  return Buffer.from(
    `${timestamp}\n${method.toUpperCase()}\n${pathWithQuery}\n${canonicalJson(body)}`,
    'utf8',
  );
}
