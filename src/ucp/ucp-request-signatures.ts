import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';

import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Request } from 'express';

import type { RegisteredKey } from '../common/auth/principal';
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
 * caches). A protocol key with a registered public key signs with our own scheme
 * (docs/security.md "Signing requests"), or, on a request that carries Signature-Input (the two
 * schemes share the Signature header), with RFC 9421 under keyid = the protocol key's id.
 * Nothing is written unless the signature verifies: then its nonce is claimed in Postgres, once.
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

/** Our RegisteredKey algorithm names as RFC 9421's. */
const REGISTERED_ALG: Record<RegisteredKey['alg'], SignatureAlgorithm> = {
  ed25519: 'ed25519',
  p256: 'ecdsa-p256-sha256',
};

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
    const failure = await this.check(req, keyLookup, negotiated.profileUrl);
    if (failure) {
      this.log(failure, negotiated.profileUrl);
      throw refusalOf(failure, problem.key);
    }
  }

  /**
   * RFC 9421 with the protocol key's registered public key (keyid = the key's id), for a request
   * that carries Signature-Input instead of our own scheme's Signature and Timestamp.
   */
  async verifyRegistered(req: Request, keyId: string, registered: RegisteredKey): Promise<void> {
    const keyLookup = (keyid: string): VerificationKey | null =>
      keyid === keyId ? { key: registered.pem, alg: REGISTERED_ALG[registered.alg] } : null;
    const failure = await this.check(req, keyLookup, 'protocol_key');
    if (failure) {
      this.log(failure, `protocol key ${keyId}`);
      if (failure.reason === 'unknown_key' || failure.reason === 'missing') {
        throw refusal(
          401,
          SIGNATURE_MISSING,
          `This protocol key has a registered public key: sign the request with it (RFC 9421, keyid "${keyId}") or use Signature and Timestamp without Signature-Input`,
        );
      }
      throw refusalOf(failure, null);
    }
  }

  /** Verifies with `keyLookup`; the failure, or null when a signature verified (its nonce claimed). */
  private async check(
    req: Request,
    keyLookup: (keyid: string) => VerificationKey | null,
    nonceScope: string,
  ): Promise<VerifyFailure | null> {
    const rawBody = (req as RawBodyRequest).rawBody;
    const declaredLength = Number(req.header('content-length') ?? 0);
    const hasBody =
      (rawBody?.length ?? 0) > 0 ||
      declaredLength > 0 ||
      req.header('transfer-encoding') !== undefined;
    const nonceStore: NonceStore = {
      claim: (keyid, nonce, until) => this.nonces.claim(`${nonceScope} ${keyid}`, nonce, until),
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
    return result.ok ? null : result;
  }

  private log(failure: VerifyFailure, signer: string): void {
    this.logger.warn(
      { reason: failure.reason, detail: failure.detail, signer },
      'UCP request signature refused',
    );
  }
}
