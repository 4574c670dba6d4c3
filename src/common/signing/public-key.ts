import { createPublicKey, KeyObject, verify as cryptoVerify } from 'node:crypto';

import { commonErrors } from '../errors/app-error';

export type PublicKeyAlg = 'ed25519' | 'p256';

export interface ParsedPublicKey {
  pem: string;
  alg: PublicKeyAlg;
}

/**
 * Accepts a PEM (SPKI) string or a JWK object (OKP/Ed25519 or EC/P-256) and returns the
 * normalised PEM plus its algorithm. Anything else is a 400 naming `param`.
 */
export function parsePublicKey(input: unknown, param: string): ParsedPublicKey {
  let key: KeyObject;
  try {
    if (typeof input === 'string') {
      key = createPublicKey(input);
    } else if (input && typeof input === 'object') {
      key = createPublicKey({ key: input as never, format: 'jwk' });
    } else {
      throw new Error('not a key');
    }
  } catch {
    throw commonErrors.invalid(
      param,
      `${param} must be an Ed25519 or P-256 public key (PEM or JWK)`,
    );
  }
  const type = key.asymmetricKeyType;
  const curve = key.asymmetricKeyDetails?.namedCurve;
  const alg: PublicKeyAlg | null =
    type === 'ed25519' ? 'ed25519' : type === 'ec' && curve === 'prime256v1' ? 'p256' : null;
  if (!alg) {
    throw commonErrors.invalid(param, `${param} must be an Ed25519 or P-256 public key`);
  }
  return { pem: key.export({ type: 'spki', format: 'pem' }).toString(), alg };
}

/** base64url with or without padding (docs/acp.md §3). */
export function decodeBase64Url(s: string): Buffer | null {
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(s)) {
    return null;
  }
  return Buffer.from(s.replace(/=+$/, ''), 'base64url');
}

/** Ed25519: 64-byte signature. P-256: 64-byte r||s (IEEE P1363), never DER. */
export function verifyDetached(
  pem: string,
  alg: PublicKeyAlg,
  data: Buffer,
  signature: Buffer,
): boolean {
  if (signature.length !== 64) {
    return false;
  }
  try {
    if (alg === 'ed25519') {
      return cryptoVerify(null, data, pem, signature);
    }
    return cryptoVerify('sha256', data, { key: pem, dsaEncoding: 'ieee-p1363' }, signature);
  } catch {
    return false;
  }
}
