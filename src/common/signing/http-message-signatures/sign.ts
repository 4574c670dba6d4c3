import { serializeDictionary } from 'structured-headers';

import { contentDigest } from './content-digest';
import { signBytes, toPrivateKey } from './keys';
import {
  ComponentError,
  isSupportedComponent,
  parametersOf,
  signatureBase,
  signatureInputList,
} from './signature-base';
import {
  type Body,
  type HttpHeaders,
  type HttpMessage,
  isRequest,
  type KeyInput,
  MessageSigningError,
  type SignatureAlgorithm,
  type SignatureParams,
} from './types';

// Signing requests and responses (docs/http-message-signatures.md, "Signing").

export interface SignOptions {
  keyid: string;
  /** The private key: a KeyObject, a JWK with `d`, or PEM. */
  key: KeyInput;
  alg: SignatureAlgorithm;
  /** Covered components; defaults in docs/http-message-signatures.md ("Signing"). */
  components?: readonly string[];
  /** Defaults to now. */
  created?: Date;
  expires?: Date;
  nonce?: string;
  /** Dictionary key in both headers; defaults to `sig1`. */
  label?: string;
  tag?: string;
  /** Write the `alg` parameter (default true). */
  algParameter?: boolean;
}

/** Headers to set on the message. `Content-Digest` is present when the body is covered. */
export interface SignatureHeaders {
  'Signature-Input': string;
  Signature: string;
  'Content-Digest'?: string;
}

const LABEL = /^[a-z*][a-z0-9_.*-]*$/;

function defaultComponents(message: HttpMessage): string[] {
  const components = isRequest(message) ? ['@method', '@target-uri'] : ['@status'];
  if (message.body !== undefined) {
    components.push('content-digest');
  }
  return components;
}

function seconds(date: Date): number {
  const ms = date.getTime();
  if (!Number.isFinite(ms)) {
    throw new MessageSigningError('invalid date');
  }
  return Math.floor(ms / 1000);
}

function withHeader(headers: HttpHeaders, name: string, value: string): HttpHeaders {
  const copy: Record<string, HttpHeaders[string]> = {};
  for (const [key, v] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) {
      copy[key] = v;
    }
  }
  copy[name] = value;
  return copy;
}

/** The signature base for these components and parameters (for tests and diagnostics). */
export function createSignatureBase(
  message: HttpMessage,
  components: readonly string[],
  params: SignatureParams,
): string {
  return signatureBase(message, signatureInputList(components, parametersOf(params)));
}

/**
 * Signs a request or response. When `content-digest` is covered, the digest of `body` is computed
 * and signed, and returned for the caller to set (replacing any it had).
 */
export function signMessage(message: HttpMessage, options: SignOptions): SignatureHeaders {
  const label = options.label ?? 'sig1';
  if (!LABEL.test(label)) {
    throw new MessageSigningError(`invalid signature label ${label}`);
  }
  const components = [...(options.components ?? defaultComponents(message))];
  if (new Set(components).size !== components.length) {
    throw new MessageSigningError('a component is listed twice');
  }
  for (const component of components) {
    if (!isSupportedComponent(component)) {
      throw new MessageSigningError(`unsupported component ${component}`);
    }
  }
  let signed: HttpMessage = message;
  let digest: string | undefined;
  if (components.includes('content-digest')) {
    const body: Body | undefined = message.body;
    if (body === undefined) {
      throw new MessageSigningError('content-digest is covered but there is no body');
    }
    digest = contentDigest(body);
    signed = { ...message, headers: withHeader(message.headers, 'content-digest', digest) };
  }
  const created = seconds(options.created ?? new Date());
  const expires = options.expires === undefined ? undefined : seconds(options.expires);
  if (expires !== undefined && expires < created) {
    throw new MessageSigningError('expires is before created');
  }
  const params = parametersOf({
    created,
    expires,
    nonce: options.nonce,
    keyid: options.keyid,
    alg: options.algParameter === false ? undefined : options.alg,
    tag: options.tag,
  });
  const input = signatureInputList(components, params);
  let base: string;
  try {
    base = signatureBase(signed, input);
  } catch (error) {
    throw error instanceof ComponentError ? new MessageSigningError(error.message) : error;
  }
  const signature = signBytes(options.alg, toPrivateKey(options.key), Buffer.from(base, 'utf8'));
  const headers: SignatureHeaders = {
    'Signature-Input': serializeDictionary(new Map([[label, input]])),
    Signature: serializeDictionary(new Map([[label, [signature, new Map()]]])),
  };
  if (digest !== undefined) {
    headers['Content-Digest'] = digest;
  }
  return headers;
}
