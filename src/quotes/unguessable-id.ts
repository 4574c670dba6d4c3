import { randomToken, TOKEN_ALPHABET_SIZE } from '../common/ids';

/** 24 uniform base-54 characters: 24 × log2(54) ≈ 138 bits. */
const LENGTH = 24;

/**
 * An id that is also a capability: a quote id is all the hosted payment page needs (spec §5 rule
 * 5), so it must not be guessable. `newId` (src/common/ids.ts) spends 10 of its 24 characters on
 * the creation time and draws the other 14 at random: about 80 random bits, and the time is
 * readable. This one is 24 random characters (≈138 bits ≥ 128) behind the prefix, the same
 * length and alphabet as newId, so stored ids keep one shape. Ordering comes from created_at.
 */
export function unguessableId(prefix: string): string {
  return `${prefix}_${randomToken(LENGTH)}`;
}

/** Bits of randomness in an unguessableId (for tests and docs). */
export const UNGUESSABLE_ID_BITS = LENGTH * Math.log2(TOKEN_ALPHABET_SIZE);
