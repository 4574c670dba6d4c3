/**
 * Aadhaar is never collected (spec §2, DOMAIN.md C.26–27): a value that holds what looks like an
 * Aadhaar number — 12 digits, the first 2–9, a valid Verhoeff check digit, optionally written in
 * groups of four separated by spaces or hyphens — is refused before anything is stored, and the
 * number is never echoed. The Verhoeff tables are the standard dihedral-group ones.
 */
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

/** True when the digit string (check digit last) passes the Verhoeff check. */
export function verhoeffValid(digits: string): boolean {
  if (!/^[0-9]+$/.test(digits)) {
    return false;
  }
  let c = 0;
  const reversed = [...digits].reverse();
  for (let i = 0; i < reversed.length; i++) {
    c = D[c][P[i % 8][Number(reversed[i])]];
  }
  return c === 0;
}

/** The Verhoeff check digit to append to `digits`. */
export function verhoeffCheckDigit(digits: string): number {
  let c = 0;
  const reversed = [...digits].reverse();
  for (let i = 0; i < reversed.length; i++) {
    c = D[c][P[(i + 1) % 8][Number(reversed[i])]];
  }
  return INV[c];
}

export function isAadhaarNumber(digits: string): boolean {
  return /^[2-9][0-9]{11}$/.test(digits) && verhoeffValid(digits);
}

/**
 * 12 digits, alone or in 4-4-4 groups (space, hyphen, dot), not glued to other digits. Longer
 * digit runs (a 16-digit number) are not an Aadhaar number, but every 12-digit window of a run is
 * tried too: someone may have typed one straight after another number.
 */
const GROUPED = /(?<![0-9])[0-9]{4}[ .-][0-9]{4}[ .-][0-9]{4}(?![0-9])/g;
const RUNS = /[0-9]{12,}/g;

export function containsAadhaar(text: string): boolean {
  for (const m of text.matchAll(GROUPED)) {
    if (isAadhaarNumber(m[0].replace(/[ .-]/g, ''))) {
      return true;
    }
  }
  for (const m of text.matchAll(RUNS)) {
    const run = m[0];
    for (let i = 0; i + 12 <= run.length; i++) {
      if (isAadhaarNumber(run.slice(i, i + 12))) {
        return true;
      }
    }
  }
  return false;
}

/** Document kinds that name an Aadhaar card, however spelled. */
export function isAadhaarKind(kind: string): boolean {
  return /a{1,2}dh?a{1,2}r|\buid(ai)?\b/i.test(kind);
}

/**
 * The JSONPath of the first string in `value` (objects and arrays walked) holding an Aadhaar
 * number, or null. Keys are checked too.
 */
export function findAadhaar(value: unknown, path = '$'): string | null {
  if (typeof value === 'string') {
    return containsAadhaar(value) ? path : null;
  }
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) {
    return null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findAadhaar(value[i], `${path}[${i}]`);
      if (hit) {
        return hit;
      }
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const here = /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? `${path}.${k}` : `${path}['${k}']`;
      if (containsAadhaar(k)) {
        return here;
      }
      const hit = findAadhaar(v, here);
      if (hit) {
        return hit;
      }
    }
  }
  return null;
}
