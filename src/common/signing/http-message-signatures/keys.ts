import {
  createPrivateKey,
  createPublicKey,
  type JsonWebKey,
  KeyObject,
  sign as cryptoSign,
  verify as cryptoVerify,
} from 'node:crypto';

import { type KeyInput, MessageSigningError, type SignatureAlgorithm } from './types';

// Keys and the two algorithms (docs/http-message-signatures.md, "Algorithms"). ECDSA signatures
// are the raw 64-byte r||s form, never DER.

function isJwk(key: KeyInput): key is JsonWebKey {
  return typeof key === 'object' && !(key instanceof KeyObject);
}

/** A public key from a KeyObject (public or private), a JWK or PEM. */
export function toPublicKey(key: KeyInput): KeyObject {
  if (key instanceof KeyObject) {
    return key.type === 'public' ? key : createPublicKey(key);
  }
  if (isJwk(key)) {
    const publicPart: JsonWebKey = { ...key };
    delete publicPart.d;
    return createPublicKey({ key: publicPart, format: 'jwk' });
  }
  return createPublicKey(key);
}

/** A private key from a KeyObject, a JWK (with `d`) or PEM. */
export function toPrivateKey(key: KeyInput): KeyObject {
  if (key instanceof KeyObject) {
    if (key.type !== 'private') {
      throw new MessageSigningError('signing needs a private key');
    }
    return key;
  }
  if (isJwk(key)) {
    return createPrivateKey({ key, format: 'jwk' });
  }
  return createPrivateKey(key);
}

/** Whether the key is of the type the algorithm needs (Ed25519, or EC on P-256). */
export function keyFitsAlgorithm(key: KeyObject, alg: SignatureAlgorithm): boolean {
  switch (alg) {
    case 'ed25519':
      return key.asymmetricKeyType === 'ed25519';
    case 'ecdsa-p256-sha256':
      return (
        key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1'
      );
  }
}

export function signBytes(alg: SignatureAlgorithm, key: KeyObject, data: Buffer): Buffer {
  if (!keyFitsAlgorithm(key, alg)) {
    throw new MessageSigningError(`the key does not fit ${alg}`);
  }
  switch (alg) {
    case 'ed25519':
      return cryptoSign(null, data, key);
    case 'ecdsa-p256-sha256':
      return cryptoSign('sha256', data, { key, dsaEncoding: 'ieee-p1363' });
  }
}

/** False for a wrong signature, a wrong length, or a key that does not fit the algorithm. */
export function verifyBytes(
  alg: SignatureAlgorithm,
  key: KeyObject,
  data: Buffer,
  signature: Buffer,
): boolean {
  if (!keyFitsAlgorithm(key, alg) || signature.length !== 64) {
    return false;
  }
  try {
    switch (alg) {
      case 'ed25519':
        return cryptoVerify(null, data, key, signature);
      case 'ecdsa-p256-sha256':
        return cryptoVerify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature);
    }
  } catch {
    return false;
  }
}
