import { base64LengthOf, DOCUMENT_MAX_BYTES } from '../common/document-size';
import { documentErrors } from './documents.errors';

/**
 * What a document is allowed to be (docs/documents.md "Documents and outbound fetches"): a PDF, JPEG or PNG,
 * recognised by its magic bytes (the declared type must match), at most DOCUMENT_MAX_BYTES once
 * decoded. Pure functions; no I/O.
 */

/** Defined in src/common/document-size.ts, below the HTTP body limit derived from them. */
export { base64LengthOf, DOCUMENT_MAX_BYTES };

export const DOCUMENT_TYPES = ['application/pdf', 'image/jpeg', 'image/png'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

export function isDocumentType(value: string): value is DocumentType {
  return (DOCUMENT_TYPES as readonly string[]).includes(value);
}

/** RFC 4648 §4 alphabet, optional `=` padding, nothing else (no whitespace, no data: prefix). */
const STRICT_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function notBase64Reason(b64: string, dataLength: number, padding: number): string | null {
  if (!STRICT_BASE64.test(b64)) {
    if (/^data:/i.test(b64)) {
      return 'send the base64 text only, without a data: URL prefix';
    }
    if (/\s/.test(b64)) {
      return 'whitespace and line breaks are not allowed (send one unbroken line)';
    }
    if (/[-_]/.test(b64)) {
      return 'use the standard alphabet (+ and /), not the URL-safe one (- and _)';
    }
    return 'only A-Z, a-z, 0-9, +, / and trailing = padding are allowed';
  }
  const rest = dataLength % 4;
  if (rest === 1 || (padding > 0 && (b64.length % 4 !== 0 || padding !== (4 - rest) % 4))) {
    return 'the length is not that of a base64 text (wrong padding or truncated)';
  }
  // Canonical encoding (RFC 4648 §3.5): the bits the last character carries beyond the data
  // must be zero, so each document has one spelling.
  if (rest !== 0) {
    const last = ALPHABET.indexOf(b64[dataLength - 1]);
    if ((last & (rest === 2 ? 0x0f : 0x03)) !== 0) {
      return 'the last character carries non-zero padding bits (not canonical base64)';
    }
  }
  return null;
}

/**
 * Decodes a document sent as base64: the standard alphabet, `=` padding optional, whitespace
 * refused (not stripped: a JSON string has no reason to be wrapped, and refusing keeps one
 * spelling per document). The decoded size is computed from the text's length and refused with
 * 413 before anything is decoded or even scanned, so an oversized body costs no allocation.
 *
 * Throws `document_empty` (400), `document_too_large` (413), `document_not_base64` (400).
 */
export function decodeBase64Document(
  b64: string,
  maxBytes: number = DOCUMENT_MAX_BYTES,
  param?: string,
): Buffer {
  if (b64.length === 0) {
    throw documentErrors.empty(param);
  }
  const padding = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
  const dataLength = b64.length - padding;
  const decodedLength = Math.floor((dataLength * 3) / 4);
  if (decodedLength > maxBytes) {
    throw documentErrors.tooLarge(maxBytes, param);
  }
  const reason = notBase64Reason(b64, dataLength, padding);
  if (reason) {
    throw documentErrors.notBase64(reason, param);
  }
  if (decodedLength === 0) {
    throw documentErrors.empty(param);
  }
  const bytes = Buffer.from(b64, 'base64');
  if (bytes.length !== decodedLength) {
    // Unreachable after the checks above; refuse rather than store something else.
    throw documentErrors.notBase64('it does not decode to the expected length', param);
  }
  return bytes;
}

const PDF = Buffer.from('%PDF-', 'latin1');
const JPEG = Buffer.from([0xff, 0xd8, 0xff]);
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function startsWith(bytes: Uint8Array, magic: Buffer): boolean {
  if (bytes.length < magic.length) {
    return false;
  }
  for (let i = 0; i < magic.length; i++) {
    if (bytes[i] !== magic[i]) {
      return false;
    }
  }
  return true;
}

/**
 * The document's type by its magic bytes at offset 0, or null: PDF `%PDF-`, JPEG `FF D8 FF`, PNG
 * `89 50 4E 47 0D 0A 1A 0A`. A header cut short is null, not a guess.
 */
export function sniffDocumentType(bytes: Uint8Array): DocumentType | null {
  if (startsWith(bytes, PDF)) {
    return 'application/pdf';
  }
  if (startsWith(bytes, JPEG)) {
    return 'image/jpeg';
  }
  if (startsWith(bytes, PNG)) {
    return 'image/png';
  }
  return null;
}

/** The media type of a Content-Type value, lower case, without parameters (`; charset=…`). */
export function mediaTypeOf(contentType: string | null | undefined): string | null {
  const type = contentType?.split(';')[0].trim().toLowerCase();
  return type ? type : null;
}

/**
 * The document's type, checked against what the caller declared: unknown bytes are 415
 * `document_type_unsupported`; bytes of another type than declared are 415
 * `document_type_mismatch`. `declared` may carry parameters and any case (`Image/PNG; x=y`);
 * null means nothing was declared (the bytes alone decide).
 */
export function checkDocumentType(
  bytes: Uint8Array,
  declared: string | null,
  param?: string,
): DocumentType {
  const actual = sniffDocumentType(bytes);
  if (actual === null) {
    throw documentErrors.typeUnsupported(param);
  }
  const declaredType = mediaTypeOf(declared);
  // image/jpg is a common misspelling of image/jpeg; anything else must match exactly.
  const normalised = declaredType === 'image/jpg' ? 'image/jpeg' : declaredType;
  if (normalised !== null && normalised !== actual) {
    throw documentErrors.typeMismatch(declaredType!, actual, param);
  }
  return actual;
}
