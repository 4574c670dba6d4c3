import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';

import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Request } from 'express';

import { Clock } from '../common/clock';
import type { RawBodyRequest } from '../common/http/http-pipeline';
import {
  type NonceStore,
  type SignatureAlgorithm,
  type VerificationKey,
  type VerifyFailure,
  verifyMessageSignature,
} from '../common/signing/http-message-signatures';
import { PostgresNonceStore } from '../common/signing/http-message-signatures/postgres-nonce-store';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { UcpError } from './ucp-errors';
import type { Negotiated } from './ucp-negotiation';

/**
 * Inbound RFC 9421 request signatures on /ucp (docs/ucp.md "Request signatures"). A platform whose
 * profile publishes `signing_keys` must sign every request with one of them; a platform without
 * keys is not asked to. The key is looked up by `keyid` in the profile negotiation fetched (and
 * caches); the protocol key's registered public key is not used here (it signs our own scheme,
 * checked by UcpMerchantGuard). Nothing is written unless the signature verifies: then its nonce
 * is claimed in Postgres, once.
 */

const SIGNATURE_MISSING = 'signature_missing';
const SIGNATURE_INVALID = 'signature_invalid';
const KEY_NOT_FOUND = 'key_not_found';
const DIGEST_MISMATCH = 'digest_mismatch';
const ALGORITHM_UNSUPPORTED = 'algorithm_unsupported';

/** The algorithm a profile JWK verifies with, from its kty and crv (UCP: not from `alg`). */
export function algorithmOfJwk(jwk: Record<string, unknown>): SignatureAlgorithm | null {
  if (jwk.kty === 'EC' && jwk.crv === 'P-256') {
    return 'ecdsa-p256-sha256';
  }
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') {
    return 'ed25519';
  }
  return null;
}

/** The public part of a profile JWK as a key, or null when it is not a readable public key. */
function publicKeyOf(jwk: Record<string, unknown>): KeyObject | null {
  const { kty, crv, x, y } = jwk;
  try {
    return createPublicKey({ key: { kty, crv, x, y } as JsonWebKey, format: 'jwk' });
  } catch {
    return null;
  }
}

/** What the covered components must include for this request (UCP's REST request signing). */
export function requiredComponents(req: Request, hasBody: boolean): string[] {
  const required = ['@method', '@authority', '@path'];
  if (req.originalUrl.includes('?')) {
    required.push('@query');
  }
  if (req.header('ucp-agent') !== undefined) {
    required.push('ucp-agent');
  }
  if (req.header('idempotency-key') !== undefined) {
    required.push('idempotency-key');
  }
  if (hasBody) {
    required.push('content-digest', 'content-type');
  }
  return required;
}

const refusal = (status: number, code: string, message: string) =>
  new UcpError(status, code, message, 'recoverable');

/** Our words for each failure (the verifier's detail is for logs only). */
function refusalOf(failure: VerifyFailure, keyProblem: string | null): UcpError {
  const kid = failure.keyid === undefined ? '' : ` (keyid ${failure.keyid.slice(0, 80)})`;
  switch (failure.reason) {
    case 'missing':
      return refusal(
        401,
        SIGNATURE_MISSING,
        'Your platform profile publishes signing_keys: sign the request (RFC 9421 Signature-Input and Signature)',
      );
    case 'unknown_key':
      if (keyProblem === 'unsupported') {
        return refusal(
          400,
          ALGORITHM_UNSUPPORTED,
          `The signing key${kid} is not an EC P-256 or Ed25519 JWK; no other algorithm is accepted`,
        );
      }
      if (keyProblem === 'unreadable') {
        return refusal(
          401,
          SIGNATURE_INVALID,
          `The signing key${kid} in your profile is not a readable public JWK`,
        );
      }
      return refusal(
        401,
        KEY_NOT_FOUND,
        `The keyid${kid} is not among the signing_keys of your profile`,
      );
    case 'digest_mismatch':
      return refusal(400, DIGEST_MISMATCH, 'Content-Digest does not match the request body');
    case 'malformed':
      return refusal(
        401,
        SIGNATURE_INVALID,
        `The signature${kid} is malformed: it needs created, keyid and nonce parameters and supported components`,
      );
    case 'missing_component':
      return refusal(
        401,
        SIGNATURE_INVALID,
        `The signature${kid} must cover @method, @authority, @path, @query (with a query), ucp-agent, idempotency-key (when sent), content-digest and content-type (with a body)`,
      );
    case 'expired':
    case 'too_old':
      return refusal(401, SIGNATURE_INVALID, `The signature${kid} has expired; sign afresh`);
    case 'not_yet_valid':
      return refusal(401, SIGNATURE_INVALID, `The signature${kid} was created in the future`);
    case 'replayed':
      return refusal(
        401,
        SIGNATURE_INVALID,
        `The signature nonce${kid} was already used; sign each request with a new nonce`,
      );
    case 'alg_mismatch':
    case 'bad_signature':
      return refusal(401, SIGNATURE_INVALID, `Request signature verification failed${kid}`);
  }
}

@Injectable()
export class UcpRequestSignatures {
  private readonly logger = new Logger('UcpRequestSignatures');

  constructor(
    private readonly clock: Clock,
    private readonly nonces: PostgresNonceStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The URL the platform addressed: our public base (BASE_URL) and the request's path and query. */
  publicUrl(req: Request): string {
    return this.config.baseUrl.replace(/\/+$/, '') + req.originalUrl;
  }

  /** Throws the UCP refusal when the platform publishes keys and the request is not signed by one. */
  async verify(req: Request, negotiated: Negotiated): Promise<void> {
    const keys = negotiated.signingKeys ?? [];
    if (keys.length === 0) {
      return;
    }
    const rawBody = (req as RawBodyRequest).rawBody;
    const declaredLength = Number(req.header('content-length') ?? 0);
    const hasBody =
      (rawBody?.length ?? 0) > 0 ||
      declaredLength > 0 ||
      req.header('transfer-encoding') !== undefined;
    const problem: { key: 'unsupported' | 'unreadable' | null } = { key: null };
    const keyLookup = (keyid: string): VerificationKey | null => {
      const jwk = keys.find((k) => k.kid === keyid);
      if (!jwk) {
        return null;
      }
      const alg = algorithmOfJwk(jwk);
      if (!alg) {
        problem.key = 'unsupported';
        return null;
      }
      const key = publicKeyOf(jwk);
      if (!key) {
        problem.key = 'unreadable';
        return null;
      }
      return { key, alg };
    };
    // Keyids are the platform's own names: a nonce is scoped to the profile that published the key.
    const nonceStore: NonceStore = {
      claim: (keyid, nonce, until) =>
        this.nonces.claim(`${negotiated.profileUrl} ${keyid}`, nonce, until),
    };
    const result = await verifyMessageSignature(
      {
        method: req.method,
        url: this.publicUrl(req),
        headers: req.headers,
        // A body the JSON parser did not read (another media type) is checked as empty: its
        // Content-Digest cannot match, so it is refused.
        body: rawBody ?? Buffer.alloc(0),
      },
      {
        keyLookup,
        now: this.clock.now(),
        requiredComponents: requiredComponents(req, hasBody),
        nonceStore,
        requireNonce: true,
      },
    );
    if (!result.ok) {
      this.logger.warn(
        { reason: result.reason, detail: result.detail, profile: negotiated.profileUrl },
        'UCP request signature refused',
      );
      throw refusalOf(result, problem.key);
    }
  }
}
