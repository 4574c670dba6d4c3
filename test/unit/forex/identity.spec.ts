import fc from 'fast-check';

import {
  containsAadhaar,
  findAadhaar,
  isAadhaarKind,
  isAadhaarNumber,
  verhoeffCheckDigit,
  verhoeffValid,
} from '../../../src/forex/aadhaar';
import { checkPan, digestPan, maskPan } from '../../../src/forex/pan';

/** A Verhoeff-valid 12-digit number starting 2–9: what an Aadhaar number looks like. */
export function aadhaarLike(body11: string): string {
  return `${body11}${verhoeffCheckDigit(body11)}`;
}

describe('Verhoeff', () => {
  it('accepts the textbook example and refuses a single changed digit', () => {
    expect(verhoeffValid('2363')).toBe(true);
    expect(verhoeffCheckDigit('236')).toBe(3);
    expect(verhoeffValid('2364')).toBe(false);
  });

  it('detects every single-digit error (property)', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[2-9][0-9]{10}$/),
        fc.nat({ max: 11 }),
        fc.integer({ min: 1, max: 9 }),
        (body, pos, delta) => {
          const n = aadhaarLike(body);
          expect(isAadhaarNumber(n)).toBe(true);
          const changed = `${n.slice(0, pos)}${(Number(n[pos]) + delta) % 10}${n.slice(pos + 1)}`;
          expect(verhoeffValid(changed)).toBe(false);
        },
      ),
    );
  });
});

describe('Aadhaar detection', () => {
  const n = aadhaarLike('23456789012');

  it('finds it alone, grouped, and inside text', () => {
    expect(containsAadhaar(n)).toBe(true);
    expect(containsAadhaar(`${n.slice(0, 4)} ${n.slice(4, 8)} ${n.slice(8)}`)).toBe(true);
    expect(containsAadhaar(`${n.slice(0, 4)}-${n.slice(4, 8)}-${n.slice(8)}`)).toBe(true);
    expect(containsAadhaar(`Asha, id ${n}, please`)).toBe(true);
  });

  it('ignores numbers that are not Aadhaar numbers', () => {
    const bad = `${n.slice(0, 11)}${(Number(n[11]) + 1) % 10}`;
    expect(containsAadhaar(bad)).toBe(false);
    expect(containsAadhaar(`1${n.slice(1, 11)}${verhoeffCheckDigit(`1${n.slice(1, 11)}`)}`)).toBe(
      false,
    );
    expect(containsAadhaar('12345')).toBe(false);
    expect(containsAadhaar('+91 98765 43210')).toBe(false);
  });

  it('names the field that holds it', () => {
    expect(findAadhaar({ a: 'x', lines: [{ note: 'ok' }, { note: n }] })).toBe('$.lines[1].note');
    expect(findAadhaar({ a: 'x' })).toBeNull();
  });

  it('recognises Aadhaar document kinds however spelled', () => {
    for (const k of ['aadhaar', 'Aadhar', 'aadhaar_card', 'AADHAAR', 'uidai']) {
      expect(isAadhaarKind(k)).toBe(true);
    }
    expect(isAadhaarKind('passport')).toBe(false);
  });
});

describe('PAN', () => {
  it('checks format and holder type; masks; keys the hash', () => {
    expect(checkPan(' abcpe1234f ', ['P'])).toEqual({ ok: true, pan: 'ABCPE1234F' });
    expect(checkPan('ABCPE1234', ['P'])).toEqual({ ok: false, problem: 'format' });
    expect(checkPan('ABCXE1234F', ['P'])).toEqual({ ok: false, problem: 'format' });
    expect(checkPan('ABCCE1234F', ['P'])).toEqual({ ok: false, problem: 'holder_type' });
    expect(maskPan('ABCPE1234F')).toBe('XXXXX1234F');
    const a = digestPan('ABCPE1234F', Buffer.alloc(32, 1), 1);
    const b = digestPan('ABCPE1234F', Buffer.alloc(32, 2), 2);
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(a.hash).not.toBe(b.hash);
    expect(JSON.stringify(a)).not.toContain('ABCPE');
  });
});
