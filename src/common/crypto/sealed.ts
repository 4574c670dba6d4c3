import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM sealing of a secret that must be stored but cannot be hashed (we need it back).
 * `aad` binds the ciphertext to its row (e.g. its id), so a ciphertext copied onto another row
 * does not open. Stored as `v1.<iv>.<tag>.<ciphertext>` (base64url), the same layout as webhook
 * secrets (src/webhooks/webhook-secrets.ts), leaving room for a key version later.
 */
const VERSION = 'v1';

export class SealedValueError extends Error {}

/** A key given as 64 hex characters or base64 of 32 bytes; null when it is neither. */
export function parseAes256Key(raw: string): Buffer | null {
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  return key.length === 32 ? key : null;
}

export function sealSecret(key: Buffer, plaintext: string, aad: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad));
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, ...[iv, cipher.getAuthTag(), ct].map((p) => p.toString('base64url'))].join('.');
}

/** Whether `value` has the sealed layout (it may still fail to open under another key). */
export function isSealed(value: string): boolean {
  return /^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(value);
}

/** The plaintext; throws SealedValueError for another layout, a wrong key, wrong aad or tampering. */
export function openSealed(key: Buffer, sealed: string, aad: string): string {
  if (!isSealed(sealed)) {
    throw new SealedValueError(`not in the ${VERSION} sealed format`);
  }
  const [, iv, tag, ct] = sealed.split('.');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([
      decipher.update(Buffer.from(ct, 'base64url')),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    throw new SealedValueError('does not open with this key (wrong key, or the value was altered)');
  }
}

/**
 * AES-256-GCM over bytes, for large binary values stored in a bytea column (documents): the same
 * sealing as sealSecret without the text encoding, laid out as `iv (12) ‖ tag (16) ‖ ciphertext`.
 * `aad` binds the ciphertext to its row, as above. The key version is the caller's to record.
 */
export function sealBytes(key: Buffer, plaintext: Buffer, aad: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad));
  const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ct]);
}

/** The plaintext of sealBytes; throws SealedValueError for a wrong key, wrong aad or tampering. */
export function openSealedBytes(key: Buffer, sealed: Buffer, aad: string): Buffer {
  if (sealed.length < 28) {
    throw new SealedValueError('too short to be sealed bytes');
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(sealed.subarray(12, 28));
    return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]);
  } catch {
    throw new SealedValueError('does not open with this key (wrong key, or the value was altered)');
  }
}
