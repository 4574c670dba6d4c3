import { jsonPathMember } from '../errors/validation';
import { IdentityKind, numberIsAadhaar, scanIdentityNumbers } from './identity-numbers';

/** Where a value sits: object keys and array indexes from the root. */
export type Steps = readonly (string | number)[];

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

interface Frame {
  container: object;
  keys: string[] | null;
  next: number;
  parent: Frame | null;
  at: string | number | null;
}

function stepsOf(frame: Frame | null, member?: string | number): (string | number)[] {
  const steps: (string | number)[] = member === undefined ? [] : [member];
  for (let f = frame; f !== null && f.at !== null; f = f.parent) {
    steps.push(f.at);
  }
  return steps.reverse();
}

/** An RFC 9535 JSONPath of `steps` under `root` (`$`, `$.query`). */
export function jsonPathOf(root: string, steps: Steps): string {
  let path = root;
  for (const step of steps) {
    path = typeof step === 'number' ? `${path}[${step}]` : jsonPathMember(path, step);
  }
  return path;
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
  const check = (v: unknown, frame: Frame | null, member?: string | number): IdentityHit | null => {
    if (typeof v === 'string') {
      if (
        member !== undefined &&
        typeof member === 'string' &&
        policy.skipKeys?.has(member) &&
        policy.skip?.(stepsOf(frame, member))
      ) {
        return null;
      }
      const scan = scanIdentityNumbers(v);
      if (scan.aadhaar) {
        return { kind: 'aadhaar', steps: stepsOf(frame, member), inKey: false };
      }
      if (scan.pan) {
        const steps = stepsOf(frame, member);
        if (!policy.allowsPan?.(steps)) {
          return { kind: 'pan', steps, inKey: false };
        }
      }
      return null;
    }
    if (typeof v === 'number' && numberIsAadhaar(v)) {
      return { kind: 'aadhaar', steps: stepsOf(frame, member), inKey: false };
    }
    return null;
  };

  if (value === null || typeof value !== 'object') {
    return check(value, null);
  }
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) {
    return null;
  }
  const enter = (container: object, parent: Frame | null, at: string | number | null) => {
    const frame: Frame = { container, keys: null, next: 0, parent, at };
    if (Array.isArray(container)) {
      return { frame, hit: null };
    }
    frame.keys = Object.keys(container);
    for (const key of frame.keys) {
      const scan = scanIdentityNumbers(key);
      if (scan.aadhaar || (scan.pan && !policy.allowsPan?.(stepsOf(frame, key)))) {
        const kind: IdentityKind = scan.aadhaar ? 'aadhaar' : 'pan';
        return { frame, hit: { kind, steps: stepsOf(frame, key), inKey: true } };
      }
    }
    return { frame, hit: null };
  };

  const root = enter(value, null, null);
  if (root.hit) {
    return root.hit;
  }
  const stack: Frame[] = [root.frame];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    const { container, keys } = frame;
    const size = keys ? keys.length : (container as unknown[]).length;
    if (frame.next >= size) {
      stack.pop();
      continue;
    }
    const i = frame.next++;
    const member: string | number = keys ? keys[i] : i;
    const child: unknown = keys
      ? (container as Record<string, unknown>)[keys[i]]
      : (container as unknown[])[i];
    if (child !== null && typeof child === 'object') {
      if (Buffer.isBuffer(child) || child instanceof Uint8Array) {
        continue;
      }
      const entered = enter(child, frame, member);
      if (entered.hit) {
        return entered.hit;
      }
      stack.push(entered.frame);
    } else {
      const hit = check(child, frame, member);
      if (hit) {
        return hit;
      }
    }
  }
  return null;
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
