import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZabcdefghjkmnpqrstvwxyz';
/** Bytes at or above this are redrawn, so every character is uniform over the 54 (no modulo bias). */
const LIMIT = 256 - (256 % ALPHABET.length);
/** 24 uniform base-54 characters: 24 × log2(54) ≈ 138 bits. */
const LENGTH = 24;

/**
 * An id that is also a capability: a quote id is all the hosted payment page needs (spec §5 rule
 * 5), so it must not be guessable. `newId` (src/common/ids.ts) spends 10 of its 24 characters on
 * the creation time and draws the other 14 with a modulo bias: about 80 random bits, and the time
 * is readable. This one is 24 uniformly random characters (≈138 bits ≥ 128) behind the prefix, the
 * same length and alphabet as newId, so stored ids keep one shape. Ordering comes from created_at.
 */
export function unguessableId(prefix: string): string {
  let out = '';
  while (out.length < LENGTH) {
    for (const byte of randomBytes(LENGTH * 2)) {
      if (byte < LIMIT && out.length < LENGTH) {
        out += ALPHABET[byte % ALPHABET.length];
      }
    }
  }
  return `${prefix}_${out}`;
}

/** Bits of randomness in an unguessableId (for tests and docs). */
export const UNGUESSABLE_ID_BITS = LENGTH * Math.log2(ALPHABET.length);
