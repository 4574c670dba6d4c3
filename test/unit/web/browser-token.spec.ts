import { createHash, randomBytes } from 'node:crypto';

import { identityNumberIn } from '../../../src/common/identity/identity-numbers';
import { csrfTokenFor, newBrowserToken } from '../../../src/web/csrf';

/**
 * The app's tokens come back in form bodies, which the identity-number edge checks
 * (docs/personal-data.md "Identity numbers we refuse"): a token or CSRF token that reads as a PAN
 * would have every form of that browser refused, so newBrowserToken draws again.
 */
describe('newBrowserToken', () => {
  /** Hands out the given 32-byte draws in order, then real random bytes. */
  const draws = (...queued: Buffer[]) => {
    const calls: number[] = [];
    const random = (size: number) => {
      calls.push(size);
      return queued.shift() ?? randomBytes(size);
    };
    return { random, calls };
  };

  it('draws again when the token itself holds a PAN-shaped run', () => {
    const shaped = Buffer.from(`ABCPE1234F-${'x'.repeat(31)}A`, 'base64url');
    expect(identityNumberIn(shaped.toString('base64url'))).toBe('pan');
    const clean = createHash('sha256').update('clean draw').digest();
    const { random, calls } = draws(shaped, clean);

    expect(newBrowserToken(random)).toBe(clean.toString('base64url'));
    expect(calls).toEqual([32, 32]);
  });

  it('draws again when the CSRF token derived from it holds one', () => {
    // Found by search: the token is clean, its CSRF token carries `-PvZpG8560n_`.
    const token = 'tTUoTcZXJBsSBL1LrkqDm749hK5RBXNiYbE2DkdlR3k';
    expect(identityNumberIn(token)).toBeNull();
    expect(identityNumberIn(csrfTokenFor(token))).toBe('pan');
    const clean = createHash('sha256').update('clean draw').digest();
    const { random, calls } = draws(Buffer.from(token, 'base64url'), clean);

    expect(newBrowserToken(random)).toBe(clean.toString('base64url'));
    expect(calls).toHaveLength(2);
  });

  it('keeps the first draw when neither holds an identity number, 43 base64url characters', () => {
    const clean = createHash('sha256').update('clean draw').digest();
    const { random, calls } = draws(clean);
    const token = newBrowserToken(random);
    expect(token).toBe(clean.toString('base64url'));
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(calls).toHaveLength(1);
  });
});
