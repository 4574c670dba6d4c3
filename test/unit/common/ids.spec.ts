import { newId, randomHex, randomToken } from '../../../src/common/ids';
import { unguessableId } from '../../../src/quotes/unguessable-id';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZabcdefghjkmnpqrstvwxyz';

describe('ids (src/common/ids.ts)', () => {
  it('newId is the prefix, 10 characters of time and 14 random ones, time-ordered', () => {
    const a = newId('pi');
    expect(a).toMatch(/^pi_[0-9a-z]{10}[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{14}$/);
    const later = newId('pi');
    expect(later.slice(3, 13) >= a.slice(3, 13)).toBe(true);
  });

  it('never repeats across more ids than one refill of the pool serves', () => {
    // 4 KB serves ~290 tokens of 14: 20,000 ids cross the refill many times.
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      seen.add(randomToken(14));
    }
    expect(seen.size).toBe(20_000);
  });

  it('draws every character of the alphabet equally often (no modulo bias)', () => {
    // 54 does not divide 256: a byte taken modulo 54 would favour the first 40 characters by 5:4.
    const counts = new Map<string, number>();
    const text = randomToken(540_000);
    for (const ch of text) {
      counts.set(ch, (counts.get(ch) ?? 0) + 1);
    }
    expect([...counts.keys()].sort().join('')).toBe([...ALPHABET].sort().join(''));
    const first40 = [...ALPHABET.slice(0, 40)].reduce((s, c) => s + (counts.get(c) ?? 0), 0) / 40;
    const last14 = [...ALPHABET.slice(40)].reduce((s, c) => s + (counts.get(c) ?? 0), 0) / 14;
    // Expected 10,000 each; with bias the first 40 would average ~10,500 and the last 14 ~8,400.
    expect(first40 / last14).toBeGreaterThan(0.97);
    expect(first40 / last14).toBeLessThan(1.03);
  });

  it('randomHex gives two hex digits a byte, and request ids keep their shape', () => {
    expect(randomHex(12)).toMatch(/^[0-9a-f]{24}$/);
    expect(randomHex(12)).not.toBe(randomHex(12));
  });

  it('unguessableId is 24 random characters behind the prefix', () => {
    expect(unguessableId('qt')).toMatch(/^qt_[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{24}$/);
  });
});
