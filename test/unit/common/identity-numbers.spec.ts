import { randomUUID } from 'node:crypto';

import fc from 'fast-check';

import {
  containsAadhaar,
  containsPan,
  decimalDigitValue,
  identityNumberIn,
  identityNumberInPath,
  isAadhaarKind,
  isAadhaarNumber,
  normaliseIdentityText,
  numberIsAadhaar,
  scanIdentityNumbers,
  verhoeffCheckDigit,
  verhoeffValid,
} from '../../../src/common/identity/identity-numbers';
import { findAadhaar, findIdentityNumber } from '../../../src/common/identity/identity-walk';
import { newId } from '../../../src/common/ids';
import {
  aadhaarNumber,
  DIGIT_ZEROS,
  embedded,
  notAadhaarNumber,
  panToken,
  rendered,
  wordText,
} from '../../support/identity-arbitraries';

const RUNS = { numRuns: 300 };
const n = (body11: string) => `${body11}${verhoeffCheckDigit(body11)}`;
const A = n('23456789012');

describe('identity numbers', () => {
  describe('Verhoeff', () => {
    it('accepts the textbook example and refuses a changed digit', () => {
      expect(verhoeffValid('2363')).toBe(true);
      expect(verhoeffCheckDigit('236')).toBe(3);
      expect(verhoeffValid('2364')).toBe(false);
      expect(isAadhaarNumber(A)).toBe(true);
      expect(isAadhaarNumber(`1${A.slice(1)}`)).toBe(false);
    });
  });

  describe('normalisation', () => {
    it('maps the digits of every script to their values', () => {
      for (const zero of DIGIT_ZEROS) {
        for (let d = 0; d <= 9; d++) {
          expect(normaliseIdentityText(String.fromCodePoint(zero + d))).toBe(String(d));
        }
      }
      // NFKC: circled and superscript digits, full-width letters; format characters dropped.
      expect(normaliseIdentityText('①²Ａ\u200b\u00ad5')).toBe('12A5');
    });

    it('finds every \\p{Nd} code point in whole sets of ten (the rule decimalDigitValue relies on)', () => {
      const nd = /\p{Nd}/u;
      let run = 0;
      let sets = 0;
      for (let cp = 0; cp <= 0x10ffff + 1; cp++) {
        const isDigit =
          cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff) && nd.test(String.fromCodePoint(cp));
        if (isDigit) {
          run++;
          continue;
        }
        if (run > 0) {
          expect(run % 10).toBe(0);
          sets += run / 10;
          for (let k = 0; k < run; k++) {
            expect(decimalDigitValue(cp - run + k)).toBe(k % 10);
          }
          run = 0;
        }
      }
      expect(sets).toBeGreaterThan(60);
    });
  });

  describe('Aadhaar', () => {
    it('is found in any script, separator and grouping, inside text (property)', () => {
      fc.assert(
        fc.property(embedded(rendered(aadhaarNumber)), ({ text }) => {
          expect(containsAadhaar(text)).toBe(true);
          expect(identityNumberIn(text)).toBe('aadhaar');
        }),
        RUNS,
      );
    });

    it('is not found when the check digit is wrong (property)', () => {
      fc.assert(
        fc.property(embedded(rendered(notAadhaarNumber)), ({ text }) => {
          expect(containsAadhaar(text)).toBe(false);
        }),
        RUNS,
      );
    });

    it.each([
      ['plain', A],
      ['4-4-4 with two spaces', `${A.slice(0, 4)}  ${A.slice(4, 8)}  ${A.slice(8)}`],
      ['4-8 with an en dash', `${A.slice(0, 4)}\u2013${A.slice(4)}`],
      ['no-break spaces and a tab', `${A.slice(0, 4)}\u00a0${A.slice(4, 8)}\t${A.slice(8)}`],
      ['newlines', `${A.slice(0, 4)}\n${A.slice(4, 8)}\r\n${A.slice(8)}`],
      ['after a list number', `1. ${A.slice(0, 4)} ${A.slice(4, 8)} ${A.slice(8)}`],
      ['before a phone number', `${A.slice(0, 4)} ${A.slice(4, 8)} ${A.slice(8)} 9876543210`],
      ['after a label', `Aadhaar:${A}`],
      ['in an email', `${A}@example.test`],
      ['after "No."', `No.${A}`],
      ['with spaces inside a reference', `UID-${A.slice(0, 4)} ${A.slice(4, 8)} ${A.slice(8)}`],
      ['as a key-like value', `aadhaar_no ${A}`],
    ])('is found: %s', (_label, text) => {
      expect(containsAadhaar(text)).toBe(true);
    });

    it.each([
      ['a 16-digit number', `${A}1234`],
      ['a 4-4-4-4 card number', `4111 ${A.slice(0, 4)} ${A.slice(4, 8)} ${A.slice(8)}`],
      ['a number glued to letters', `x${A}`],
      ['a reference behind a hyphen', `INV-${A}`],
      ['a reference behind an underscore', `pay_${A}`],
      ['grouped inside a reference', `INV-${A.slice(0, 4)}-${A.slice(4, 8)}-${A.slice(8)}`],
      ['a number after +', `+${A.slice(0, 2)} ${A.slice(2)}`],
      ['+91 and a mobile number', '+91 98765 43210'],
      ['91 and a mobile number', '91 98765 43210'],
      ['a mobile number', '9876543210'],
      ['two dates', '2025/11/13 2025/11/14'],
      ['an ISO timestamp', '2025-11-13T10:20:30.123Z'],
      ['a 1 in front', `1${A.slice(1, 11)}${verhoeffCheckDigit(`1${A.slice(1, 11)}`)}`],
    ])('is not found: %s', (_label, text) => {
      expect(containsAadhaar(text)).toBe(false);
    });

    it('is not found in our ids, UUIDs, timestamps, amounts or phone numbers (property)', () => {
      const prefixes = [
        'pay',
        'fxo',
        'cs',
        'vt',
        'qt',
        'pi',
        'req',
        'agt',
        'ws',
        'mdt',
        'rf',
        'doc',
      ];
      fc.assert(
        fc.property(
          fc.constantFrom(...prefixes),
          fc.date({
            min: new Date('2000-01-01'),
            max: new Date('2099-12-31'),
            noInvalidDate: true,
          }),
          fc.integer({ min: 0, max: 99_999_999_999 }),
          fc.integer({ min: 0, max: 10_000_000 }),
          fc.integer({ min: 6_000_000_000, max: 9_999_999_999 }),
          (prefix, date, paise, rupees, mobile) => {
            const m = String(mobile);
            const texts = [
              newId(prefix),
              randomUUID(),
              date.toISOString(),
              date.toISOString().replace('T', ' ').slice(0, 19),
              String(paise),
              `${Math.floor(paise / 100)}.${String(paise % 100).padStart(2, '0')}`,
              `₹${rupees.toLocaleString('en-IN')}.00`,
              m,
              `+91 ${m.slice(0, 5)} ${m.slice(5)}`,
              `+91-${m}`,
              `+91${m}`,
              `91 ${m.slice(0, 5)} ${m.slice(5)}`,
              `0${m}`,
            ];
            for (const t of texts) {
              expect([t, identityNumberIn(t)]).toEqual([t, null]);
            }
          },
        ),
        RUNS,
      );
    });

    it('checks 12-digit integers (JSON numbers) and nothing shorter or longer', () => {
      expect(numberIsAadhaar(Number(A))).toBe(true);
      expect(numberIsAadhaar(Number(A) + 1)).toBe(false);
      expect(numberIsAadhaar(150_000)).toBe(false);
      expect(numberIsAadhaar(Number(`${A}0`))).toBe(false);
    });

    it('recognises Aadhaar document kinds however spelled', () => {
      for (const k of ['aadhaar', 'Aadhar', 'aadhaar_card', 'AADHAAR', 'uidai', 'ａａｄｈａａｒ']) {
        expect(isAadhaarKind(k)).toBe(true);
      }
      expect(isAadhaarKind('passport')).toBe(false);
    });
  });

  describe('PAN', () => {
    it('is found in any case, width, digit script and spacing, inside text (property)', () => {
      fc.assert(
        fc.property(embedded(panToken), ({ text }) => {
          expect(containsPan(text)).toBe(true);
          expect(identityNumberIn(text)).toBe('pan');
        }),
        RUNS,
      );
    });

    it.each([
      ['a masked PAN', 'XXXXX1234F'],
      ['a wrong holder letter', 'ABCDE1234F'],
      ['a GSTIN', '27ABCPE1234F1Z5'],
      ['glued to letters', 'xABCPE1234F'],
      ['letters spaced out', 'A B C P E 1 2 3 4 F'],
      ['an IFSC code', 'SBIN0001234'],
      ['one digit short', 'ABCPE123F'],
    ])('is not found: %s', (_label, text) => {
      expect(containsPan(text)).toBe(false);
    });

    it('is not looked for when a PAN is expected', () => {
      expect(scanIdentityNumbers('ABCPE1234F', { pan: false })).toEqual({
        aadhaar: false,
        pan: false,
      });
    });

    it('is not found in words or ids (property)', () => {
      fc.assert(
        fc.property(wordText, fc.constantFrom('pay', 'fxo', 'cs'), (w, p) => {
          expect(containsPan(w)).toBe(false);
          expect(containsPan(newId(p))).toBe(false);
        }),
        RUNS,
      );
    });
  });

  describe('walking a value', () => {
    it('names the first string, key or number holding one, keys before values', () => {
      expect(findIdentityNumber({ a: 'x', lines: [{ note: 'ok' }, { note: A }] })).toMatchObject({
        kind: 'aadhaar',
        steps: ['lines', 1, 'note'],
      });
      expect(findIdentityNumber({ a: { [`k ${A}`]: 1 } })).toMatchObject({
        kind: 'aadhaar',
        steps: ['a', `k ${A}`],
        inKey: true,
      });
      expect(findIdentityNumber({ meta: { uid: Number(A) } })).toMatchObject({
        steps: ['meta', 'uid'],
      });
      expect(findIdentityNumber({ notes: 'PAN ABCPE1234F' })).toMatchObject({ kind: 'pan' });
      expect(findAadhaar({ a: 'x', lines: [{ note: 'ok' }, { note: A }] })).toBe('$.lines[1].note');
      expect(findAadhaar({ pan: 'ABCPE1234F' })).toBeNull();
    });

    it('lets a PAN through where the policy expects one, and skips opaque members', () => {
      const policy = {
        allowsPan: (steps: readonly (string | number)[]) =>
          steps.length === 1 && steps[0] === 'pan',
        skipKeys: new Set(['content_base64']),
        skip: () => true,
      };
      expect(findIdentityNumber({ pan: 'ABCPE1234F' }, policy)).toBeNull();
      expect(findIdentityNumber({ pan: A }, policy)).toMatchObject({ kind: 'aadhaar' });
      expect(findIdentityNumber({ x: { pan: 'ABCPE1234F' } }, policy)).toMatchObject({
        kind: 'pan',
      });
      expect(findIdentityNumber({ content_base64: `QUJD ${A}` }, policy)).toBeNull();
    });

    it('walks a million members without recursion, in linear time', () => {
      const wide = Array.from({ length: 1_000_000 }, (_, i) => `item ${i}`);
      let deep: unknown = 'x';
      for (let i = 0; i < 10_000; i++) {
        deep = [deep];
      }
      const started = Date.now();
      expect(findIdentityNumber(wide)).toBeNull();
      expect(findIdentityNumber(deep)).toBeNull();
      expect(Date.now() - started).toBeLessThan(3_000);
    });
  });

  describe('in a URL path', () => {
    it('finds a number in its own segment after a word, however its groups are joined', () => {
      for (const segment of [
        '2000–0000_0009',
        '2000_0000_0009',
        '2000-0000-0009',
        '200000000009',
      ]) {
        // In free text `orders/…` would join a reference to a word; in a path `/` ends a segment.
        expect(identityNumberIn(`orders/${segment}`)).toBeNull();
        expect(identityNumberInPath(`/v1/pay/forex/orders/${encodeURIComponent(segment)}`)).toBe(
          'aadhaar',
        );
      }
    });

    it('finds one split across segments, and passes our ids and Verhoeff-invalid digits', () => {
      expect(identityNumberInPath('/2000/0000/0009')).toBe('aadhaar');
      expect(identityNumberInPath('/v1/pay/forex/orders/fxo_200000000009')).toBeNull();
      expect(identityNumberInPath('/v1/pay/forex/orders/200000000008')).toBeNull();
      expect(identityNumberInPath('/v1/pay/forex/orders/%E0%A4')).toBeNull();
    });
  });
});
