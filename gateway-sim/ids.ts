import { createHmac, randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export type IdPrefix =
  'order' | 'pay' | 'rfnd' | 'cust' | 'token' | 'plink' | 'setl' | 'blk' | 'evt';

/**
 * Gateway ids: `<prefix>_` + 14 alphanumerics. Random by default, so a restarted simulator never
 * hands out an id a service database already holds; with a seed the sequence is reproducible
 * (HMAC(seed, counter)), for runs that compare outputs byte for byte.
 */
export class IdGenerator {
  private counter = 0;

  constructor(private readonly seed?: string) {}

  next(prefix: IdPrefix): string {
    const bytes = this.seed
      ? createHmac('sha256', this.seed).update(`${prefix}:${++this.counter}`).digest()
      : randomBytes(32);
    let out = '';
    for (let i = 0; out.length < 14; i++) {
      // 62 * 4 = 248: bytes ≥ 248 are skipped so every character is equally likely.
      if (bytes[i] < 248) {
        out += ALPHABET[bytes[i] % 62];
      }
    }
    return `${prefix}_${out}`;
  }

  /** A bank reference number (UTR) for a settlement: 12 upper-case alphanumerics. */
  utr(): string {
    return this.next('setl').slice(5, 17).toUpperCase();
  }
}
