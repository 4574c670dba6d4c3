import { createHmac, randomBytes } from 'node:crypto';

/**
 * A personal value as a signed chain may carry it (docs/personal-data.md "What we keep after
 * erasure, and why"): HMAC-SHA-256 of the NFC-normalised value under a random 256-bit salt that is
 * kept outside the chain, in an erasable column. Whoever holds the salt and the value can show the
 * chain named that value; once erasure deletes both, the digest links to nobody, and the chain's
 * signed bytes never change, so it still verifies. Never a plain hash: names are guessable.
 */
export function newDigestSalt(): string {
  return randomBytes(32).toString('base64url');
}

export function personalDigest(salt: string, value: string): string {
  return `hmac-sha256:${createHmac('sha256', Buffer.from(salt, 'base64url'))
    .update(value.normalize('NFC'), 'utf8')
    .digest('hex')}`;
}
