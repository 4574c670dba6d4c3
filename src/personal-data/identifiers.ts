import { createHmac } from 'node:crypto';

/**
 * Finding a person's identifiers in stored text, normalised, not as typed (docs/personal-data.md
 * "How erasure finds the person"): emails lower-cased and trimmed; phones by their last 10 digits
 * (so `+91 98229 03448`, `09822903448` and `98229-03448` are all `9822903448`); names lower-cased
 * with single spaces, matched as whole runs of words. Current values are known in the clear; old
 * values (after a correction) only as keyed hashes (personal_data_old_identifiers), so every
 * candidate found in the text is normalised and checked against both.
 */

export type IdentifierKind = 'name' | 'email' | 'phone';

/** What erasure writes where it removes an identifier from a text. */
export const ERASED = '[erased]';

/** Names shorter than this are not searched for in free text (too many false hits). */
const MIN_NAME = 3;

export function normaliseEmail(s: string): string {
  return s.trim().toLowerCase();
}

/** The last 10 digits of a phone number, or null when it has fewer than 10. */
export function normalisePhone(s: string): string | null {
  const digits = s.replace(/[^0-9]/g, '');
  return digits.length >= 10 ? digits.slice(-10) : null;
}

export function normaliseName(s: string): string {
  return s.normalize('NFKC').trim().toLowerCase().replace(/\s+/g, ' ');
}

export function nameWords(normalised: string): number {
  return normalised === '' ? 0 : normalised.split(' ').length;
}

/** The keyed hash of a normalised identifier (HMAC-SHA-256, hex). */
export function identifierDigest(key: Buffer, kind: IdentifierKind, normalised: string): string {
  return createHmac('sha256', key).update(`${kind}:${normalised}`, 'utf8').digest('hex');
}

/** The hashing key: derived from WEBHOOK_SECRET_KEY for this one purpose (never stored). */
export function identifierKey(secret: Buffer): Buffer {
  return createHmac('sha256', secret).update('personal-data/old-identifiers', 'utf8').digest();
}

export interface OldIdentifier {
  kind: IdentifierKind;
  words: number | null;
  digest: string;
}

const EMAIL_IN_TEXT = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g;
/** An Indian mobile number as people write it: +91, 91 or 0 first, spaces, hyphens, brackets. */
const PHONE_IN_TEXT =
  /(?<![0-9])(?:\+?\s*91[\s()-]*|0[\s()-]*)?\(?[6-9](?:[\s()-]*[0-9]){9}(?![0-9])/g;
const WORD = /[\p{L}\p{M}\p{N}]+(?:['’.-][\p{L}\p{M}\p{N}]+)*/gu;

interface Span {
  start: number;
  end: number;
}

/** One person's identifiers: current values in the clear, old values as keyed hashes. */
export class IdentifierMatcher {
  private readonly emails = new Set<string>();
  private readonly phones = new Set<string>();
  private readonly names = new Set<string>();
  private readonly digests = new Set<string>();
  private readonly nameLengths = new Set<number>();

  constructor(
    private readonly key: Buffer,
    current: { name?: string | null; email?: string | null; phone?: string | null },
    old: OldIdentifier[],
  ) {
    if (current.email) {
      this.emails.add(normaliseEmail(current.email));
    }
    const phone = current.phone ? normalisePhone(current.phone) : null;
    if (phone) {
      this.phones.add(phone);
    }
    const name = current.name ? normaliseName(current.name) : '';
    if (name.length >= MIN_NAME) {
      this.names.add(name);
      this.nameLengths.add(nameWords(name));
    }
    for (const o of old) {
      this.digests.add(`${o.kind}:${o.digest}`);
      if (o.kind === 'name' && o.words) {
        this.nameLengths.add(o.words);
      }
    }
  }

  /** True when nothing can match (a person with no identifiers). */
  get empty(): boolean {
    return this.emails.size + this.phones.size + this.names.size === 0 && this.digests.size === 0;
  }

  private known(kind: IdentifierKind, normalised: string): boolean {
    const plain = kind === 'email' ? this.emails : kind === 'phone' ? this.phones : this.names;
    return (
      plain.has(normalised) ||
      (this.digests.size > 0 &&
        this.digests.has(`${kind}:${identifierDigest(this.key, kind, normalised)}`))
    );
  }

  private spans(text: string): Span[] {
    const found: Span[] = [];
    for (const m of text.matchAll(EMAIL_IN_TEXT)) {
      if (this.known('email', normaliseEmail(m[0]))) {
        found.push({ start: m.index, end: m.index + m[0].length });
      }
    }
    for (const m of text.matchAll(PHONE_IN_TEXT)) {
      const phone = normalisePhone(m[0]);
      if (phone && this.known('phone', phone)) {
        found.push({ start: m.index, end: m.index + m[0].length });
      }
    }
    if (this.nameLengths.size > 0) {
      const words = [...text.matchAll(WORD)].map((m) => ({
        start: m.index,
        end: m.index + m[0].length,
        text: m[0],
      }));
      for (const k of this.nameLengths) {
        for (let i = 0; i + k <= words.length; i++) {
          const run = words.slice(i, i + k);
          // Only words separated by whitespace form a name.
          const joined = text.slice(run[0].start, run[k - 1].end);
          if (!/^[^\s]+(?:\s+[^\s]+)*$/.test(joined) || joined.split(/\s+/).length !== k) {
            continue;
          }
          const name = normaliseName(joined);
          if (name.length >= MIN_NAME && this.known('name', name)) {
            found.push({ start: run[0].start, end: run[k - 1].end });
          }
        }
      }
    }
    return found;
  }

  /** True when the text holds one of the person's identifiers. */
  matches(text: string): boolean {
    return this.spans(text).length > 0;
  }

  /** The text with every one of the person's identifiers replaced by ERASED. */
  redact(text: string): string {
    const spans = this.spans(text).sort((a, b) => a.start - b.start || b.end - a.end);
    let out = '';
    let at = 0;
    for (const s of spans) {
      if (s.start < at) {
        continue;
      }
      out += text.slice(at, s.start) + ERASED;
      at = s.end;
    }
    return out + text.slice(at);
  }

  /** A JSON value with the person's identifiers replaced in every string (and phone-like number). */
  redactJson(value: unknown): unknown {
    if (typeof value === 'string') {
      return this.redact(value);
    }
    if (typeof value === 'number' && Number.isInteger(value)) {
      const s = String(value);
      return this.redact(s) === s ? value : ERASED;
    }
    if (Array.isArray(value)) {
      return value.map((v) => this.redactJson(v));
    }
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, this.redactJson(v)]),
      );
    }
    return value;
  }

  /** True when any string (or phone-like number) in the JSON value holds an identifier. */
  matchesJson(value: unknown): boolean {
    return JSON.stringify(this.redactJson(value)) !== JSON.stringify(value);
  }
}
