/**
 * How large a document may be (docs/documents.md "Documents and outbound fetches"). Defined here,
 * below the features, because the HTTP pipeline's body limit for the upload route is derived from
 * it (src/common/http/body-limits.ts); src/documents/document-content.ts re-exports both names for
 * the document rules.
 */

/**
 * 5 MB, where MB means 10^6 bytes (decimal, as docs/documents.md
 * says): exactly 5,000,000 decoded bytes are accepted, 5,000,001 are refused.
 */
export const DOCUMENT_MAX_BYTES = 5_000_000;

/** Length of the base64 text (standard alphabet, padded) of `bytes` bytes: 4 · ⌈bytes / 3⌉. */
export function base64LengthOf(bytes: number): number {
  return 4 * Math.ceil(bytes / 3);
}
