import { createHmac } from 'node:crypto';

/**
 * PAN handling (DOMAIN.md C.25, C.28). Format: five letters, four digits, one letter; the 4th
 * letter is the holder type. The check letter's algorithm is not published, so a PAN is validated
 * by format and holder type only, never "verified".
 *
 * The raw PAN is never stored, logged, returned or put on a receipt: only
 * - a keyed hash, HMAC-SHA-256 under a secret pepper held outside the database
 *   (FOREX_PAN_PEPPER), with the pepper's version (FOREX_PAN_KEY_VERSION) stored beside it, so the
 *   small PAN space cannot be brute-forced from a database copy; the hash is what links files of
 *   one person for the LRS and TCS totals;
 * - a masked form, XXXXX1234X (letters hidden, digits and check letter shown).
 */
export const PAN_PATTERN = /^[A-Z]{5}[0-9]{4}[A-Z]$/;

export const PAN_HOLDER_TYPES: Record<string, string> = {
  P: 'individual',
  C: 'company',
  H: 'Hindu undivided family',
  F: 'firm or LLP',
  A: 'association of persons',
  T: 'trust',
  B: 'body of individuals',
  L: 'local authority',
  J: 'artificial juridical person',
  G: 'government',
};

export interface PanDigest {
  /** Lower-case hex HMAC-SHA-256 of the PAN under the pepper of keyVersion. */
  hash: string;
  keyVersion: number;
  /** XXXXX1234X */
  masked: string;
  holderType: string;
}

export type PanCheck = { ok: true; pan: string } | { ok: false; problem: 'format' | 'holder_type' };

/** Upper-cases and trims, then checks format and that the holder type is one of `allowed`. */
export function checkPan(raw: string, allowed: readonly string[]): PanCheck {
  const pan = raw.trim().toUpperCase();
  if (!PAN_PATTERN.test(pan) || !(pan[3] in PAN_HOLDER_TYPES)) {
    return { ok: false, problem: 'format' };
  }
  if (!allowed.includes(pan[3])) {
    return { ok: false, problem: 'holder_type' };
  }
  return { ok: true, pan };
}

export function maskPan(pan: string): string {
  return `XXXXX${pan.slice(5)}`;
}

/** The digest of a PAN already checked by checkPan. */
export function digestPan(pan: string, pepper: Buffer, keyVersion: number): PanDigest {
  return {
    hash: createHmac('sha256', pepper).update(`pan:${pan}`, 'utf8').digest('hex'),
    keyVersion,
    masked: maskPan(pan),
    holderType: pan[3],
  };
}

/** A value that is already a digest (the REST guard digests the PAN before the body is hashed). */
export function isPanDigest(v: unknown): v is PanDigest {
  const d = v as PanDigest | null;
  return (
    typeof d === 'object' &&
    d !== null &&
    typeof d.hash === 'string' &&
    /^[0-9a-f]{64}$/.test(d.hash) &&
    Number.isInteger(d.keyVersion) &&
    /^XXXXX[0-9]{4}[A-Z]$/.test(d.masked) &&
    typeof d.holderType === 'string'
  );
}
