import { createHash, timingSafeEqual } from 'node:crypto';

import { type Dictionary, parseDictionary, serializeDictionary } from 'structured-headers';

import { byteSequence } from './structured-values';
import type { Body } from './types';

// RFC 9530 Content-Digest: we write sha-256 and accept sha-256 or sha-512
// (docs/http-message-signatures.md, "Content-Digest").
const HASHES: Readonly<Record<string, string>> = { 'sha-256': 'sha256', 'sha-512': 'sha512' };

export function bodyBytes(body: Body): Buffer {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
}

/** The Content-Digest field value for a body: `sha-256=:<base64>:`. */
export function contentDigest(body: Body): string {
  const digest = createHash('sha256').update(bodyBytes(body)).digest();
  return serializeDictionary(new Map([['sha-256', [digest, new Map()]]]));
}

export type DigestCheck = { ok: true } | { ok: false; detail: string };

/**
 * Checks a Content-Digest field value against the body: every algorithm we know that the field
 * lists must match, and at least one must be listed.
 */
export function checkContentDigest(fieldValue: string, body: Body): DigestCheck {
  let dictionary: Dictionary;
  try {
    dictionary = parseDictionary(fieldValue);
  } catch {
    return { ok: false, detail: 'Content-Digest is not a structured dictionary' };
  }
  const bytes = bodyBytes(body);
  let checked = 0;
  for (const [name, member] of dictionary) {
    const hash = HASHES[name];
    if (hash === undefined) {
      continue;
    }
    const claimed = Array.isArray(member[0]) ? null : byteSequence(member[0]);
    if (claimed === null) {
      return { ok: false, detail: `Content-Digest ${name} is not a byte sequence` };
    }
    const actual = createHash(hash).update(bytes).digest();
    if (claimed.length !== actual.length || !timingSafeEqual(claimed, actual)) {
      return { ok: false, detail: `Content-Digest ${name} does not match the body` };
    }
    checked += 1;
  }
  return checked > 0
    ? { ok: true }
    : { ok: false, detail: 'Content-Digest has no sha-256 or sha-512' };
}
