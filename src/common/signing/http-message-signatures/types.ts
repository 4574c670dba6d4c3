import type { JsonWebKey, KeyObject } from 'node:crypto';

/** The algorithms we sign and verify with (docs/http-message-signatures.md, "Algorithms"). */
export type SignatureAlgorithm = 'ed25519' | 'ecdsa-p256-sha256';

export const SIGNATURE_ALGORITHMS: readonly SignatureAlgorithm[] = ['ed25519', 'ecdsa-p256-sha256'];

/** A key as a KeyObject, a JWK, or PEM text. */
export type KeyInput = KeyObject | JsonWebKey | string;

/** Header values as Node and Express hand them over; names in any case. */
export type HeaderValue = string | readonly string[] | number | undefined;
export type HttpHeaders = Readonly<Record<string, HeaderValue>>;

export type Body = string | Uint8Array;

/** A request as seen by the signer or the verifier; `url` is the full target URI. */
export interface HttpRequestMessage {
  method: string;
  url: string | URL;
  headers: HttpHeaders;
  body?: Body;
}

/** A response; only `@status` and header fields can be covered. */
export interface HttpResponseMessage {
  status: number;
  headers: HttpHeaders;
  body?: Body;
}

export type HttpMessage = HttpRequestMessage | HttpResponseMessage;

export function isRequest(message: HttpMessage): message is HttpRequestMessage {
  return 'method' in message;
}

/** The signature parameters we understand; others are kept in the base but not interpreted. */
export interface SignatureParams {
  created?: number;
  expires?: number;
  nonce?: string;
  keyid?: string;
  alg?: string;
  tag?: string;
}

/** Why a verification failed (docs/http-message-signatures.md, "Results"). */
export type VerifyFailureReason =
  | 'missing'
  | 'malformed'
  | 'unknown_key'
  | 'bad_signature'
  | 'expired'
  | 'not_yet_valid'
  | 'too_old'
  | 'replayed'
  | 'missing_component'
  | 'digest_mismatch'
  | 'alg_mismatch';

export interface VerifySuccess {
  ok: true;
  keyid: string;
  label: string;
  alg: SignatureAlgorithm;
  components: string[];
  params: SignatureParams;
}

export interface VerifyFailure {
  ok: false;
  reason: VerifyFailureReason;
  /** For logs only: never echo it to the caller verbatim. */
  detail: string;
  label?: string;
  keyid?: string;
}

export type VerifyResult = VerifySuccess | VerifyFailure;

/** Thrown when our own inputs cannot be signed (a programming or configuration error). */
export class MessageSigningError extends Error {
  override readonly name = 'MessageSigningError';
}
