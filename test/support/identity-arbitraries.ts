import fc from 'fast-check';

import { PAN_HOLDER_LETTERS, verhoeffCheckDigit } from '../../src/common/identity/identity-numbers';

/**
 * fast-check arbitraries for identity numbers as people type them (identity-numbers.ts): Aadhaar
 * numbers in any digit script, separator and grouping; PANs in either case, with separators,
 * full-width letters and non-ASCII digits; and text to embed them in.
 */

/** The zero of decimal digit sets (\p{Nd}) across scripts, BMP and astral. */
export const DIGIT_ZEROS = [
  0x30, // ASCII
  0x660, // Arabic-Indic
  0x6f0, // Extended Arabic-Indic
  0x966, // Devanagari
  0x9e6, // Bengali
  0xa66, // Gurmukhi
  0xae6, // Gujarati
  0xb66, // Oriya
  0xbe6, // Tamil
  0xc66, // Telugu
  0xce6, // Kannada
  0xd66, // Malayalam
  0xe50, // Thai
  0xed0, // Lao
  0xf20, // Tibetan
  0x1040, // Myanmar
  0x17e0, // Khmer
  0x1810, // Mongolian
  0xff10, // full-width
  0x104a0, // Osmanya (astral)
  0x11066, // Brahmi (astral)
  0x1d7ce, // mathematical bold (NFKC → ASCII)
  0x1d7f6, // mathematical monospace
];

/** Separators people put between digit groups (each 1–3 characters). */
export const SEPARATORS = [
  ' ',
  '  ',
  '   ',
  '\u00a0',
  '\t',
  '\n',
  '\r\n',
  '/',
  '.',
  '-',
  ' - ',
  '\u2013',
  '\u2014',
  '_',
  '\u2009',
  '\u202f',
  '\u3000',
  '\u2011',
  '\u2212',
  '\u00b7',
  ' \u200b',
];

/** Groupings of the twelve digits. */
export const GROUPINGS = [
  [4, 4, 4],
  [4, 8],
  [8, 4],
  [2, 10],
  [12],
  [3, 3, 3, 3],
  [6, 6],
  [2, 5, 5],
];

export function renderDigit(d: number, zero: number): string {
  return String.fromCodePoint(zero + d);
}

/** A Verhoeff-valid 12-digit number, first digit 2–9: an Aadhaar number. */
export const aadhaarNumber: fc.Arbitrary<string> = fc
  .tuple(
    fc.integer({ min: 2, max: 9 }),
    fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 10, maxLength: 10 }),
  )
  .map(([first, rest]) => {
    const body = `${first}${rest.join('')}`;
    return `${body}${verhoeffCheckDigit(body)}`;
  });

/** Twelve digits, first 2–9, whose last digit is wrong: not an Aadhaar number. */
export const notAadhaarNumber: fc.Arbitrary<string> = fc
  .tuple(aadhaarNumber, fc.integer({ min: 1, max: 9 }))
  .map(([n, delta]) => `${n.slice(0, 11)}${(Number(n[11]) + delta) % 10}`);

export interface Rendered {
  text: string;
  /** The plain ASCII digits (or the PAN in capitals), for database and log greps. */
  digits: string;
  /** The number as written, without the text around it. */
  core: string;
}

/**
 * The digits written in one or several scripts, grouped, with separators. A 2-digit first group
 * reading 91 then 6–9 is how a phone number is written (`91 98765 43210`): deliberately not an
 * Aadhaar number, so such draws use 4-4-4.
 */
export function rendered(digits: fc.Arbitrary<string>): fc.Arbitrary<Rendered> {
  return fc
    .record({
      digits,
      grouping: fc.constantFrom(...GROUPINGS),
      zeros: fc.oneof(
        fc.constantFrom(...DIGIT_ZEROS).map((z) => Array<number>(12).fill(z)),
        fc.array(fc.constantFrom(...DIGIT_ZEROS), { minLength: 12, maxLength: 12 }),
      ),
      seps: fc.array(fc.constantFrom(...SEPARATORS), { minLength: 3, maxLength: 3 }),
    })
    .map(({ digits: n, grouping, zeros, seps }) => {
      const groups = grouping[0] === 2 && /^91[6-9]/.test(n) ? [4, 4, 4] : grouping;
      let text = '';
      let at = 0;
      groups.forEach((size, g) => {
        if (g > 0) {
          text += seps[g - 1];
        }
        for (let k = 0; k < size; k++, at++) {
          text += renderDigit(Number(n[at]), zeros[at]);
        }
      });
      return { text, digits: n, core: text };
    });
}

/** Text without digits, for around a number: letters of several scripts, spaces, punctuation. */
export const wordText: fc.Arbitrary<string> = fc.string({
  unit: fc.constantFrom(...'abcxyz ÄéñआधारনামTraveller .,!?'.split('')),
  maxLength: 15,
});

/** What may touch a number on either side without being part of it. */
const LEFT = ['', ' ', '(', ': ', '#', '"', '=', '[', ', ', '\n', '*'];
const RIGHT = ['', ' ', ')', ';', ', ', '"', ']', '.', '!', '\n', '?'];

/** `number` inside random words (the number stands alone, not glued to a letter or digit). */
export function embedded(number: fc.Arbitrary<Rendered>): fc.Arbitrary<Rendered> {
  return fc
    .record({
      number,
      before: wordText,
      after: wordText,
      left: fc.constantFrom(...LEFT),
      right: fc.constantFrom(...RIGHT),
    })
    .map(({ number: n, before, after, left, right }) => {
      // Keep a separator-free, non-alphanumeric character next to the digits.
      const l = before === '' || left !== '' ? left : ' ';
      const r = after === '' || right !== '' ? right : ' ';
      const lead = l === '' ? '' : `${before}${l}`;
      const tail = r === '' ? '' : `${r}${after}`;
      return { text: `${lead}${n.text}${tail}`, digits: n.digits, core: n.text };
    });
}

const ASCII_LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** A PAN-shaped token as typed: any case, full-width letters, any digit script, separators. */
export const panToken: fc.Arbitrary<Rendered> = fc
  .record({
    letters: fc.array(fc.constantFrom(...ASCII_LETTERS), { minLength: 5, maxLength: 5 }),
    holder: fc.constantFrom(...PAN_HOLDER_LETTERS),
    digits: fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 4, maxLength: 4 }),
    check: fc.constantFrom(...ASCII_LETTERS),
    lower: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
    fullWidth: fc.boolean(),
    zero: fc.constantFrom(...DIGIT_ZEROS),
    sep1: fc.constantFrom('', '', ' ', '-', '.', '  ', '_'),
    sep2: fc.constantFrom('', '', ' ', '-', '/', ' '),
  })
  .map(({ letters, holder, digits, check, lower, fullWidth, zero, sep1, sep2 }) => {
    const chars = [letters[0], letters[1], letters[2], holder, letters[4], check];
    const cased = chars.map((c, i) => {
      const x = lower[i] ? c.toLowerCase() : c;
      return fullWidth ? String.fromCodePoint(x.charCodeAt(0) + 0xfee0) : x;
    });
    const plain = `${chars.slice(0, 5).join('')}${digits.join('')}${chars[5]}`;
    const text = `${cased.slice(0, 5).join('')}${sep1}${digits.map((d) => renderDigit(d, zero)).join('')}${sep2}${cased[5]}`;
    return { text, digits: plain, core: text };
  });
