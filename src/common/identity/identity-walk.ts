import { firstFinding, jsonPathOf, Steps, stepsTo, WalkFrame } from '../http/body-walk';
import { IdentityKind, numberIsAadhaar, scanIdentityNumbers } from './identity-numbers';

// The path helpers the edge uses, from the walk they share with the hostile-input check.
export type { Steps } from '../http/body-walk';
export { jsonPathOf } from '../http/body-walk';

export interface IdentityHit {
  kind: IdentityKind;
  steps: Steps;
  /** True when the hit is the object key at `steps`, not its value. */
  inKey: boolean;
}

/**
 * What a walk lets through. Both callbacks run only for rare members (one whose key is in
 * `skipKeys`, or one holding a PAN), so the walk stays allocation-free per value.
 */
export interface IdentityPolicy {
  /** Member names that may hold opaque bytes, such as `content_base64`. */
  skipKeys?: ReadonlySet<string>;
  /** Whether the member at `steps` (its key in skipKeys) is skipped whole: never scanned. */
  skip?(steps: Steps): boolean;
  /** Whether a PAN is expected at `steps` (the forex file's `pan`). */
  allowsPan?(steps: Steps): boolean;
}

/**
 * The first identity number in a parsed value (JSON body, form, query), walked without recursion
 * in document order, an object's keys before its values, like findHostileValue: one frame per
 * container, paths built only for a hit. Strings and keys are scanned (identity-numbers.ts), and
 * integers of exactly 12 digits; other numbers, booleans and buffers are not text.
 */
export function findIdentityNumber(
  value: unknown,
  policy: IdentityPolicy = {},
): IdentityHit | null {
  const check = (
    v: unknown,
    frame: WalkFrame | null,
    member?: string | number,
  ): IdentityHit | null => {
    if (typeof v === 'string') {
      if (
        member !== undefined &&
        typeof member === 'string' &&
        policy.skipKeys?.has(member) &&
        policy.skip?.(stepsTo(frame, member))
      ) {
        return null;
      }
      const scan = scanIdentityNumbers(v);
      if (scan.aadhaar) {
        return { kind: 'aadhaar', steps: stepsTo(frame, member), inKey: false };
      }
      if (scan.pan) {
        const steps = stepsTo(frame, member);
        if (!policy.allowsPan?.(steps)) {
          return { kind: 'pan', steps, inKey: false };
        }
      }
      return null;
    }
    if (typeof v === 'number' && numberIsAadhaar(v)) {
      return { kind: 'aadhaar', steps: stepsTo(frame, member), inKey: false };
    }
    return null;
  };

  if (value === null || typeof value !== 'object') {
    return check(value, null);
  }
  const bytes = (v: object) => Buffer.isBuffer(v) || v instanceof Uint8Array;
  if (bytes(value)) {
    return null;
  }
  return firstFinding<IdentityHit>(value, {
    enter: (frame) => {
      for (const key of frame.keys ?? []) {
        const scan = scanIdentityNumbers(key);
        if (scan.aadhaar || (scan.pan && !policy.allowsPan?.(stepsTo(frame, key)))) {
          const kind: IdentityKind = scan.aadhaar ? 'aadhaar' : 'pan';
          return { kind, steps: stepsTo(frame, key), inKey: true };
        }
      }
      return null;
    },
    scalar: (child, frame, member) => check(child, frame, member),
    opaque: bytes,
  });
}

/**
 * The JSONPath of the first string (or key) in `value` holding an Aadhaar number, or null. Kept
 * for the forex services' own checks (defence in depth behind the edge, identity-edge.ts).
 */
export function findAadhaar(value: unknown, path = '$'): string | null {
  // Only Aadhaar is looked for: a PAN is let through everywhere.
  const hit = findIdentityNumber(value, { allowsPan: () => true });
  return hit ? hitPath(path, hit) : null;
}

/**
 * Where a hit is, as a JSONPath under `root`, without the number: a key that holds one is named
 * by the object it is a key of (the key itself would echo it).
 */
export function hitPath(root: string, hit: IdentityHit): string {
  return jsonPathOf(root, hit.inKey ? hit.steps.slice(0, -1) : hit.steps);
}
