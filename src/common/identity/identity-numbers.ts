/**
 * Identity numbers in free text (DOMAIN.md C.25–27; docs/personal-data.md "Personal data"). Aadhaar is never
 * collected, and a PAN is kept only from the `pan` field of a forex file (keyed hash + masked
 * form, src/forex/pan.ts). This file finds either in a string, however it is written; the HTTP
 * edge (identity-edge.ts) refuses every request that carries one.
 *
 * Normalisation: NFKC (full-width, circled, superscript and mathematical digits become ASCII;
 * Unicode spaces become U+0020), then invisible format characters (zero-width space, soft hyphen,
 * word joiner: \p{Cf}) and combining marks (\p{Mn}, \p{Me}) are removed, then every decimal digit
 * of any script (\p{Nd}: Devanagari, Bengali, Gurmukhi, Gujarati, Oriya, Tamil, Telugu, Kannada,
 * Malayalam, Arabic-Indic, Thai, …) is mapped to 0–9.
 *
 * Aadhaar (12 digits, the first 2–9, a valid Verhoeff check digit), after normalisation:
 * - Digits form *groups* (runs of digits); groups joined by 1–8 separator characters form a
 *   *chain*. Separators: any whitespace (spaces, no-break and other Unicode spaces, tabs,
 *   newlines) and `/ \ . _`, every dash (\p{Pd}: hyphen, en and em dash, …), the minus sign and
 *   middle dots. Commas, colons and letters end a chain (amounts `1,50,000`, times `10:20`).
 * - A chain of exactly 12 digits is an Aadhaar candidate, in any grouping (4-4-4, 4-8, 2-10,
 *   3-3-3-3, none), unless it is glued to a word: a letter or digit right before or after it
 *   (`x234567890123`, ids such as `fxo_…` whose digits sit among letters), or, when no
 *   whitespace is inside it, a letter or digit behind one `-`, `_` or `/` (`INV-234567890123`,
 *   `INV-2345-6789-0123`, digit groups of a UUID).
 * - In a longer chain, a 12-digit run alone, or 4-4-4, 4-8 or 8-4 groups, are a candidate when
 *   whitespace separates them from the rest of the chain (`1. 2345 6789 0123`, an Aadhaar number
 *   followed by a phone number); 4-4-4 next to another group of four is a card number, not one.
 *   Any other longer chain (a 16-digit card number, `2025/11/13 2025/11/14`, a UUID) is not.
 * - A phone number is not one: a chain right after `+` (`+91 98765 43210`), or written as `91`,
 *   a separator, then ten digits starting 6–9 (`91 98765 43210`).
 * A bare 12-digit number that passes the check (some UPI references do) is indistinguishable from
 * an Aadhaar number and is refused: one in ten 12-digit numbers passes the Verhoeff check.
 *
 * PAN, after normalisation and case-insensitive: five letters, four digits, one letter, the 4th
 * letter a holder type (P C H F A T B L J G), with at most two separator characters (whitespace,
 * `-`, `.`, `_`, `/`) allowed after the five letters and after the four digits (`ABCPE 1234 F`),
 * not glued to a letter or digit on either side (a GSTIN such as `27ABCPE1234F1Z5` is not a PAN).
 */

// ---------------------------------------------------------------------------------------------
// Verhoeff (standard dihedral-group tables)

const D = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
  [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
  [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
  [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
  [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
  [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
  [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
  [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
  [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
];
const P = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
  [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
  [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
  [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
  [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
  [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
  [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
];
const INV = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9];

/** True when the ASCII digit string (check digit last) passes the Verhoeff check. */
export function verhoeffValid(digits: string): boolean {
  if (!/^[0-9]+$/.test(digits)) {
    return false;
  }
  let c = 0;
  for (let i = 0; i < digits.length; i++) {
    c = D[c][P[i % 8][digits.charCodeAt(digits.length - 1 - i) - 48]];
  }
  return c === 0;
}

/** The Verhoeff check digit to append to the ASCII digit string `digits`. */
export function verhoeffCheckDigit(digits: string): number {
  let c = 0;
  for (let i = 0; i < digits.length; i++) {
    c = D[c][P[(i + 1) % 8][digits.charCodeAt(digits.length - 1 - i) - 48]];
  }
  return INV[c];
}

/** Exactly 12 ASCII digits, the first 2–9, Verhoeff-valid. */
export function isAadhaarNumber(digits: string): boolean {
  return /^[2-9][0-9]{11}$/.test(digits) && verhoeffValid(digits);
}

// ---------------------------------------------------------------------------------------------
// Normalisation

const ND = /\p{Nd}/u;
const digitValues = new Map<number, number>();

/**
 * The value (0–9) of a decimal digit of any script. Unicode assigns \p{Nd} only in contiguous
 * runs of ten, 0 to 9 in order (a stability policy), and a longer contiguous run is several such
 * sets back to back (U+1D7CE–U+1D7FF), so the value is the distance from the start of the run,
 * modulo 10. Memoised per code point.
 */
export function decimalDigitValue(codePoint: number): number | null {
  if (codePoint >= 0x30 && codePoint <= 0x39) {
    return codePoint - 0x30;
  }
  const known = digitValues.get(codePoint);
  if (known !== undefined) {
    return known;
  }
  if (!ND.test(String.fromCodePoint(codePoint))) {
    return null;
  }
  let start = codePoint;
  while (start > 0 && ND.test(String.fromCodePoint(start - 1))) {
    start--;
  }
  const value = (codePoint - start) % 10;
  digitValues.set(codePoint, value);
  return value;
}

/** Invisible format characters and combining marks (dropped), non-ASCII decimal digits (mapped). */
const DROP_OR_MAP = /[\p{Cf}\p{Mn}\p{Me}]|(?![0-9])\p{Nd}/gu;

/** NFKC, format characters and combining marks removed, every decimal digit as ASCII 0–9. */
export function normaliseIdentityText(text: string): string {
  return text.normalize('NFKC').replace(DROP_OR_MAP, (c) => {
    const v = decimalDigitValue(c.codePointAt(0)!);
    return v === null ? '' : String(v);
  });
}

// ---------------------------------------------------------------------------------------------
// Character classes (on normalised text)

const SPACE_RE = /\s/u;
const HARD_SEPARATOR_RE = /[\p{Pd}\u2212\u00b7\u2022\u2027\u2219\u30fb]/u;
const ALNUM_RE = /[\p{L}\p{N}]/u;

function isDigitCode(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isSpace(ch: string): boolean {
  const c = ch.charCodeAt(0);
  if (c < 0x80) {
    return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  }
  return SPACE_RE.test(ch);
}

function isHardSeparator(ch: string): boolean {
  const c = ch.charCodeAt(0);
  if (c < 0x80) {
    // - . / \ _
    return c === 0x2d || c === 0x2e || c === 0x2f || c === 0x5c || c === 0x5f;
  }
  return HARD_SEPARATOR_RE.test(ch);
}

function isSeparator(ch: string): boolean {
  return isSpace(ch) || isHardSeparator(ch);
}

/** `-`, `_` or `/`: what joins a prefix to a reference number (`INV-…`, `pay_…`, `GST/…`). */
function isJoiner(ch: string): boolean {
  return ch === '-' || ch === '_' || ch === '/';
}

/** A letter or digit (astral ones too). */
function isAlnum(ch: string | undefined): boolean {
  if (ch === undefined || ch === '') {
    return false;
  }
  const c = ch.charCodeAt(0);
  if (c < 0x80) {
    return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
  }
  return ALNUM_RE.test(ch);
}

/** The whole character (one or two UTF-16 units) that ends just before `index`. */
function charBefore(text: string, index: number): string | undefined {
  if (index <= 0) {
    return undefined;
  }
  const c = text.charCodeAt(index - 1);
  if (c >= 0xdc00 && c <= 0xdfff && index >= 2) {
    return text.slice(index - 2, index);
  }
  return text[index - 1];
}

/** The whole character (one or two UTF-16 units) that starts at `index`. */
function charAt(text: string, index: number): string | undefined {
  if (index >= text.length) {
    return undefined;
  }
  const cp = text.codePointAt(index)!;
  return String.fromCodePoint(cp);
}

// ---------------------------------------------------------------------------------------------
// Aadhaar

/** Separator characters allowed between two digit groups of one chain. */
export const MAX_SEPARATOR_RUN = 8;

interface Chain {
  /** [start, end) of each digit group in the normalised text. */
  groups: [number, number][];
  /** Per gap between group i and i+1: whether it holds whitespace. */
  softGaps: boolean[];
}

/** Whether one chain of digit groups holds an Aadhaar number under the rules above. */
function chainHoldsAadhaar(text: string, chain: Chain): boolean {
  const { groups, softGaps } = chain;
  const n = groups.length;
  const first = groups[0][0];
  const last = groups[n - 1][1];
  const before = charBefore(text, first);
  const after = charAt(text, last);
  const leftGlued = isAlnum(before);
  const rightGlued = isAlnum(after);
  const leftJoined =
    before !== undefined && isJoiner(before) && isAlnum(charBefore(text, first - 1));
  const rightJoined = after !== undefined && isJoiner(after) && isAlnum(charAt(text, last + 1));
  const afterPlus = before === '+';
  const len = (i: number) => groups[i][1] - groups[i][0];

  for (let s = 0; s < n; s++) {
    let sum = 0;
    for (let e = s; e < n; e++) {
      sum += len(e);
      if (sum > 12) {
        break;
      }
      if (sum < 12) {
        continue;
      }
      const single = s === e;
      // Joined to a word by `-`, `_` or `/` with no space inside: part of a reference or a UUID.
      let tight = true;
      for (let k = s; k < e && tight; k++) {
        tight = !softGaps[k];
      }
      // Left edge.
      if (s === 0) {
        if (leftGlued || afterPlus || (tight && leftJoined)) {
          break;
        }
      } else if (!softGaps[s - 1]) {
        break;
      }
      // Right edge.
      if (e === n - 1) {
        if (rightGlued || (tight && rightJoined)) {
          break;
        }
      } else if (!softGaps[e]) {
        break;
      }
      // Shape, inside a longer chain.
      if (!(s === 0 && e === n - 1)) {
        const shape = groups.slice(s, e + 1).map((_, k) => len(s + k));
        const key = shape.join('-');
        if (key !== '12' && key !== '4-4-4' && key !== '4-8' && key !== '8-4') {
          break;
        }
        if (key === '4-4-4' && ((s > 0 && len(s - 1) === 4) || (e < n - 1 && len(e + 1) === 4))) {
          break;
        }
      }
      let digits = '';
      for (let k = s; k <= e; k++) {
        digits += text.slice(groups[k][0], groups[k][1]);
      }
      // 91 + a ten-digit Indian mobile number (6–9 first), written as separate groups.
      const phone = !single && len(s) === 2 && digits.startsWith('91') && /^91[6-9]/.test(digits);
      if (!phone && isAadhaarNumber(digits)) {
        return true;
      }
      break;
    }
  }
  return false;
}

/** True when normalised text holds an Aadhaar number; linear in its length. */
function normalisedHoldsAadhaar(text: string): boolean {
  const length = text.length;
  let i = 0;
  while (i < length) {
    if (!isDigitCode(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const chain: Chain = { groups: [], softGaps: [] };
    let start = i;
    for (;;) {
      let end = start;
      while (end < length && isDigitCode(text.charCodeAt(end))) {
        end++;
      }
      chain.groups.push([start, end]);
      let j = end;
      let soft = false;
      while (j < length && j - end < MAX_SEPARATOR_RUN && isSeparator(text[j])) {
        soft ||= isSpace(text[j]);
        j++;
      }
      if (j > end && j < length && isDigitCode(text.charCodeAt(j))) {
        chain.softGaps.push(soft);
        start = j;
        continue;
      }
      i = end;
      break;
    }
    let total = 0;
    for (const [s, e] of chain.groups) {
      total += e - s;
    }
    if (total >= 12 && chainHoldsAadhaar(text, chain)) {
      return true;
    }
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// PAN

/** Holder types (DOMAIN.md C.25), the 4th letter of a PAN. */
export const PAN_HOLDER_LETTERS = 'PCHFATBLJG';

const PAN_IN_TEXT = new RegExp(
  String.raw`(?<![\p{L}\p{N}])[A-Z]{3}[${PAN_HOLDER_LETTERS}][A-Z][\s._/-]{0,2}[0-9]{4}[\s._/-]{0,2}[A-Z](?![\p{L}\p{N}])`,
  'iu',
);

// ---------------------------------------------------------------------------------------------
// Entry points

export type IdentityKind = 'aadhaar' | 'pan';

export interface IdentityScan {
  aadhaar: boolean;
  pan: boolean;
}

/**
 * The identity numbers a string holds. Cheap for the common case: an ASCII string with fewer
 * than 12 digits skips the Aadhaar pass, one with fewer than 4 digits or 10 characters the PAN
 * pass; only strings with a non-ASCII character are normalised (NFKC may turn `⑫` into `12`).
 * `pan: false` skips the PAN pass (a field where a PAN is expected).
 */
export function scanIdentityNumbers(text: string, opts: { pan?: boolean } = {}): IdentityScan {
  const wantPan = opts.pan !== false;
  let digits = 0;
  let ascii = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) {
      ascii = false;
      break;
    }
    if (c >= 0x30 && c <= 0x39) {
      digits++;
    }
  }
  if (ascii) {
    const aadhaar = digits >= 12 && normalisedHoldsAadhaar(text);
    const pan = wantPan && digits >= 4 && text.length >= 10 && PAN_IN_TEXT.test(text);
    return { aadhaar, pan };
  }
  const normal = normaliseIdentityText(text);
  return {
    aadhaar: normalisedHoldsAadhaar(normal),
    pan: wantPan && PAN_IN_TEXT.test(normal),
  };
}

/** The first identity number kind a string holds (Aadhaar first), or null. */
export function identityNumberIn(text: string, opts: { pan?: boolean } = {}): IdentityKind | null {
  const scan = scanIdentityNumbers(text, opts);
  return scan.aadhaar ? 'aadhaar' : scan.pan ? 'pan' : null;
}

export function containsAadhaar(text: string): boolean {
  return scanIdentityNumbers(text, { pan: false }).aadhaar;
}

export function containsPan(text: string): boolean {
  return scanIdentityNumbers(text).pan;
}

/** A JSON number that is an Aadhaar number (a 12-digit integer), e.g. `{"uid": 234567890123}`. */
export function numberIsAadhaar(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 2e11 && n < 1e12 && isAadhaarNumber(String(n));
}

/** Document kinds that name an Aadhaar card, however spelled. */
export function isAadhaarKind(kind: string): boolean {
  return /a{1,2}dh?a{1,2}r|\buid(ai)?\b/i.test(normaliseIdentityText(kind));
}

/**
 * The identity number kind a URL path holds (as sent, percent-encoded): read whole, for digits
 * split across segments (`/2000/0000/0009`), and segment by segment, each decoded, since in a path
 * `/` ends a segment rather than joining a prefix to a reference number (`orders/2000–0000_0009`
 * holds a number in its own segment). A segment that does not decode is read as sent.
 */
export function identityNumberInPath(path: string): IdentityKind | null {
  const segments = path.split('/').map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      return segment;
    }
  });
  return (
    identityNumberIn(segments.join('/')) ??
    segments.map((segment) => identityNumberIn(segment)).find((kind) => kind !== null) ??
    null
  );
}
