import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZabcdefghjkmnpqrstvwxyz';
/** How many characters randomToken draws from: each carries log2 of this many bits. */
export const TOKEN_ALPHABET_SIZE = ALPHABET.length;
/** The largest multiple of the alphabet's size below 256: bytes at or above it are skipped, so every character is equally likely. */
const UNBIASED_BELOW = 256 - (256 % ALPHABET.length);

/**
 * Random bytes from the operating system's CSPRNG, taken 4 KB at a time and handed out once each
 * (as Node's own `randomUUID` does): one `randomFillSync` call serves hundreds of ids instead of
 * one call per id (bench/README.md measured the call per id at 2 % of the app's CPU). A byte is
 * never handed out twice.
 */
const POOL = Buffer.alloc(4096);
let next = POOL.length;

function randomByte(): number {
  if (next === POOL.length) {
    randomFillSync(POOL);
    next = 0;
  }
  return POOL[next++];
}

/** Random base-54 string; alphanumeric so ids like vt_… satisfy ACP's token pattern. */
export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    const b = randomByte();
    if (b < UNBIASED_BELOW) {
      out += ALPHABET[b % ALPHABET.length];
    }
  }
  return out;
}

/** `length` random bytes as lower-case hex. */
export function randomHex(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out += randomByte().toString(16).padStart(2, '0');
  }
  return out;
}

/** Time-ordered id: 10 chars of millisecond time + 14 random, behind a typed prefix. */
export function newId(prefix: string): string {
  const time = Date.now().toString(36).padStart(10, '0');
  return `${prefix}_${time}${randomToken(14)}`;
}
