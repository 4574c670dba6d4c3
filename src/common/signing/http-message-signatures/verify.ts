import { type Dictionary, type InnerList, type Item, parseDictionary } from 'structured-headers';

import { checkContentDigest } from './content-digest';
import { keyFitsAlgorithm, toPublicKey, verifyBytes } from './keys';
import type { NonceStore } from './nonce-store';
import { ComponentError, headerValue, isSupportedComponent, signatureBase } from './signature-base';
import { byteSequence } from './structured-values';
import {
  type HttpMessage,
  isRequest,
  type KeyInput,
  SIGNATURE_ALGORITHMS,
  type SignatureAlgorithm,
  type SignatureParams,
  type VerifyFailure,
  type VerifyFailureReason,
  type VerifyResult,
} from './types';

// Verifying RFC 9421 signatures (docs/http-message-signatures.md, "Verifying" and "Limits").

export interface VerificationKey {
  /** The public key: a KeyObject, a JWK or PEM. */
  key: KeyInput;
  alg: SignatureAlgorithm;
}

export interface VerifyOptions {
  /** The key registered for this keyid, or null when there is none. */
  keyLookup(keyid: string): VerificationKey | null | Promise<VerificationKey | null>;
  now?: Date;
  /** Oldest accepted `created`, in seconds before now (default 300). */
  maxAgeSeconds?: number;
  /** Allowance for the signer's clock (default 60 seconds). */
  clockSkewSeconds?: number;
  /** Components the signature must cover; see DEFAULT_REQUIRED_REQUEST_COMPONENTS. */
  requiredComponents?: readonly string[];
  /** A non-empty body must be covered through content-digest (default true). */
  requireDigestForBody?: boolean;
  nonceStore?: NonceStore;
  /** Refuse signatures without a nonce (default false). */
  requireNonce?: boolean;
  /** Verify only this label. */
  label?: string;
  /** Consider only signatures with this `tag`. */
  tag?: string;
}

/** What we require platforms to cover on requests (docs/http-message-signatures.md). */
export const DEFAULT_REQUIRED_REQUEST_COMPONENTS: readonly string[] = [
  '@method',
  '@authority',
  '@path',
];
export const DEFAULT_REQUIRED_RESPONSE_COMPONENTS: readonly string[] = ['@status'];
export const DEFAULT_MAX_AGE_SECONDS = 300;
export const DEFAULT_CLOCK_SKEW_SECONDS = 60;
/** More signatures than this on one message is refused as malformed. */
export const MAX_SIGNATURES = 8;

/** `@target-uri` carries these, so it satisfies a requirement for any of them. */
const IN_TARGET_URI = ['@scheme', '@authority', '@path', '@query'];

class Refusal extends Error {
  constructor(
    readonly reason: VerifyFailureReason,
    readonly detail: string,
  ) {
    super(detail);
  }
}

function refuse(reason: VerifyFailureReason, detail: string): never {
  throw new Refusal(reason, detail);
}

function isInnerList(member: Item | InnerList): member is InnerList {
  return Array.isArray(member[0]);
}

function parseField(message: HttpMessage, name: string): Dictionary | undefined {
  const value = headerValue(message.headers, name);
  if (value === undefined) {
    return undefined;
  }
  try {
    return parseDictionary(value);
  } catch {
    return refuse('malformed', `${name} is not a structured dictionary`);
  }
}

function integerParam(value: unknown, name: string): number | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    return refuse('malformed', `${name} must be a non-negative integer`);
  }
  return value;
}

function stringParam(value: unknown, name: string): string | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (typeof value !== 'string') {
    return refuse('malformed', `${name} must be a string`);
  }
  return value;
}

function readParams(input: InnerList): SignatureParams {
  const p = input[1];
  return {
    created: integerParam(p.get('created'), 'created'),
    expires: integerParam(p.get('expires'), 'expires'),
    nonce: stringParam(p.get('nonce'), 'nonce'),
    keyid: stringParam(p.get('keyid'), 'keyid'),
    alg: stringParam(p.get('alg'), 'alg'),
    tag: stringParam(p.get('tag'), 'tag'),
  };
}

function readComponents(input: InnerList): string[] {
  const components: string[] = [];
  for (const [item, itemParams] of input[0]) {
    if (typeof item !== 'string' || itemParams.size > 0 || !isSupportedComponent(item)) {
      return refuse('malformed', `unsupported covered component ${String(item)}`);
    }
    if (components.includes(item)) {
      return refuse('malformed', `${item} is covered twice`);
    }
    components.push(item);
  }
  return components;
}

function bodyLength(message: HttpMessage): number {
  return message.body === undefined ? 0 : message.body.length;
}

interface Checked {
  keyid: string;
  alg: SignatureAlgorithm;
  components: string[];
  params: SignatureParams;
}

async function verifyOne(
  message: HttpMessage,
  input: InnerList,
  signatureMember: Item | InnerList,
  options: VerifyOptions,
): Promise<Checked> {
  const signature = isInnerList(signatureMember) ? null : byteSequence(signatureMember[0]);
  if (signature === null) {
    refuse('malformed', 'the Signature member is not a byte sequence');
  }
  const components = readComponents(input);
  const params = readParams(input);
  const { created, expires, keyid, nonce } = params;
  if (created === undefined) {
    refuse('malformed', 'created is required');
  }
  if (keyid === undefined) {
    refuse('malformed', 'keyid is required');
  }
  if (expires !== undefined && expires < created) {
    refuse('malformed', 'expires is before created');
  }
  if (nonce === undefined && options.requireNonce === true) {
    refuse('malformed', 'nonce is required');
  }

  const required = [
    ...(options.requiredComponents ??
      (isRequest(message)
        ? DEFAULT_REQUIRED_REQUEST_COMPONENTS
        : DEFAULT_REQUIRED_RESPONSE_COMPONENTS)),
  ];
  if (options.requireDigestForBody !== false && bodyLength(message) > 0) {
    required.push('content-digest');
  }
  for (const component of required) {
    const covered =
      components.includes(component) ||
      (IN_TARGET_URI.includes(component) && components.includes('@target-uri'));
    if (!covered) {
      refuse('missing_component', `the signature does not cover ${component}`);
    }
  }

  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (!Number.isFinite(now)) {
    throw new TypeError('verifyMessageSignature: options.now is not a valid date');
  }
  const skew = options.clockSkewSeconds ?? DEFAULT_CLOCK_SKEW_SECONDS;
  const maxAge = options.maxAgeSeconds ?? DEFAULT_MAX_AGE_SECONDS;
  if (created > now + skew) {
    refuse('not_yet_valid', `created is ${created - now} s in the future`);
  }
  if (expires !== undefined && expires + skew < now) {
    refuse('expired', `expired ${now - expires} s ago`);
  }
  if (now - created > maxAge + skew) {
    refuse('too_old', `created ${now - created} s ago`);
  }

  const registered = await options.keyLookup(keyid);
  if (registered === null) {
    refuse('unknown_key', `no key ${keyid}`);
  }
  const alg = registered.alg;
  if (!SIGNATURE_ALGORITHMS.includes(alg)) {
    refuse('alg_mismatch', `key ${keyid} has an unsupported algorithm`);
  }
  if (params.alg !== undefined && params.alg !== alg) {
    refuse('alg_mismatch', `signed as ${params.alg}, key ${keyid} is ${alg}`);
  }
  const publicKey = toPublicKey(registered.key);
  if (!keyFitsAlgorithm(publicKey, alg)) {
    refuse('alg_mismatch', `key ${keyid} does not fit ${alg}`);
  }

  let base: string;
  try {
    base = signatureBase(message, input);
  } catch (error) {
    if (error instanceof ComponentError) {
      refuse(error.kind === 'absent' ? 'missing_component' : 'malformed', error.message);
    }
    refuse('malformed', 'the signature parameters cannot be serialised');
  }
  if (!verifyBytes(alg, publicKey, Buffer.from(base, 'utf8'), signature)) {
    refuse('bad_signature', 'the signature does not verify');
  }

  if (components.includes('content-digest')) {
    if (message.body === undefined) {
      refuse('digest_mismatch', 'content-digest is covered but no body was supplied to check');
    }
    // Covered, so present: signatureBase would have refused otherwise.
    const check = checkContentDigest(
      headerValue(message.headers, 'content-digest') ?? '',
      message.body,
    );
    if (!check.ok) {
      refuse('digest_mismatch', check.detail);
    }
  }

  if (nonce !== undefined && options.nonceStore !== undefined) {
    const until = Math.min(expires ?? Number.POSITIVE_INFINITY, created + maxAge) + skew;
    if (!(await options.nonceStore.claim(keyid, nonce, new Date(until * 1000)))) {
      refuse('replayed', `nonce already used with key ${keyid}`);
    }
  }
  return { keyid, alg, components, params };
}

/**
 * Verifies the message's RFC 9421 signature. With several labels, each is tried in order and
 * the first that verifies wins; otherwise the first failure is returned.
 */
export async function verifyMessageSignature(
  message: HttpMessage,
  options: VerifyOptions,
): Promise<VerifyResult> {
  let inputs: Dictionary | undefined;
  let signatures: Dictionary | undefined;
  try {
    inputs = parseField(message, 'signature-input');
    signatures = parseField(message, 'signature');
  } catch (error) {
    if (error instanceof Refusal) {
      return { ok: false, reason: error.reason, detail: error.detail };
    }
    throw error;
  }
  if (inputs === undefined || signatures === undefined) {
    return { ok: false, reason: 'missing', detail: 'Signature-Input or Signature is absent' };
  }
  if (inputs.size > MAX_SIGNATURES) {
    return { ok: false, reason: 'malformed', detail: 'too many signatures' };
  }

  let firstFailure: VerifyFailure | undefined;
  let tried = 0;
  for (const [label, input] of inputs) {
    if (options.label !== undefined && label !== options.label) {
      continue;
    }
    if (!isInnerList(input)) {
      firstFailure ??= {
        ok: false,
        reason: 'malformed',
        detail: `${label} is not an inner list`,
        label,
      };
      continue;
    }
    if (options.tag !== undefined && input[1].get('tag') !== options.tag) {
      continue;
    }
    const signature = signatures.get(label);
    if (signature === undefined) {
      firstFailure ??= {
        ok: false,
        reason: 'malformed',
        detail: `no Signature for ${label}`,
        label,
      };
      continue;
    }
    tried += 1;
    try {
      const checked = await verifyOne(message, input, signature, options);
      return { ok: true, label, ...checked };
    } catch (error) {
      if (!(error instanceof Refusal)) {
        throw error;
      }
      const keyid = input[1].get('keyid');
      firstFailure ??= {
        ok: false,
        reason: error.reason,
        detail: error.detail,
        label,
        ...(typeof keyid === 'string' ? { keyid } : {}),
      };
    }
  }
  if (firstFailure !== undefined) {
    return firstFailure;
  }
  return {
    ok: false,
    reason: 'missing',
    detail: tried === 0 ? 'no signature with the expected label or tag' : 'no signature verified',
  };
}
