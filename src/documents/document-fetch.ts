import { safeFetch, SafeFetchOptions } from '../common/net/safe-fetch';
import { safeFetchErrors } from '../common/net/safe-fetch.errors';
import { DOCUMENT_MAX_BYTES, mediaTypeOf } from './document-content';
import { documentErrors } from './documents.errors';

/** Whole fetch (redirects, DNS, TLS, body) of one document URL. */
export const DOCUMENT_FETCH_TIMEOUT_MS = 15_000;

export interface FetchedDocument {
  bytes: Buffer;
  /** The media type the server declared (lower case, no parameters), or null. */
  contentType: string | null;
  finalUrl: string;
}

/**
 * A document given as a public https URL (the MCP upload tool): safeFetch with the document size
 * cap (the options cannot raise it) and a bounded time, https and the default port only, at most three redirects, each checked again
 * (docs/documents.md "Documents and outbound fetches"). A non-2xx answer is `url_fetch_failed`, an empty one
 * `document_empty`. The type is not judged here: pass `bytes` and `contentType` to
 * checkDocumentType like a base64 upload.
 */
export async function fetchDocumentFromUrl(
  url: string,
  options: Omit<Partial<SafeFetchOptions>, 'maxBytes'> = {},
): Promise<FetchedDocument> {
  const res = await safeFetch(url, {
    timeoutMs: DOCUMENT_FETCH_TIMEOUT_MS,
    ...options,
    maxBytes: DOCUMENT_MAX_BYTES,
  });
  if (res.status < 200 || res.status > 299) {
    throw safeFetchErrors.fetchFailed(`it answered HTTP ${res.status}`, options.param);
  }
  if (res.body.length === 0) {
    throw documentErrors.empty(options.param);
  }
  return {
    bytes: res.body,
    contentType: mediaTypeOf(res.headers['content-type']),
    finalUrl: res.finalUrl,
  };
}
