import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZabcdefghjkmnpqrstvwxyz';

/** Random base-54 string; alphanumeric so ids like vt_… satisfy ACP's token pattern. */
export function randomToken(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) {
    out += ALPHABET[bytes[i] % ALPHABET.length];
  }
  return out;
}

/** Time-ordered id: 10 chars of millisecond time + 14 random, behind a typed prefix. */
export function newId(prefix: string): string {
  const time = Date.now().toString(36).padStart(10, '0');
  return `${prefix}_${time}${randomToken(14)}`;
}
