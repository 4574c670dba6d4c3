import { jsonPathMember } from '../errors/validation';

/** One container on the walk's stack. */
export interface WalkFrame {
  container: object;
  /** Object keys in order; null for an array. */
  keys: string[] | null;
  /** Next member to visit. */
  next: number;
  /** Level of the container, the root being 1. */
  level: number;
  parent: WalkFrame | null;
  /** Where the container sits in its parent (an array index or an object key). */
  at: string | number | null;
}

/** Where a value sits: object keys and array indexes from the root. */
export type Steps = readonly (string | number)[];

/** The steps from the root to `member` of `frame` (to the frame itself without a member). */
export function stepsTo(frame: WalkFrame | null, member?: string | number): (string | number)[] {
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

/** The JSONPath of `member` of `frame` under `root`. */
export function walkPath(root: string, frame: WalkFrame | null, member?: string | number): string {
  return jsonPathOf(root, stepsTo(frame, member));
}

export interface WalkVisitor<T> {
  /** A container just entered (its keys listed in the frame); a finding stops the walk. */
  enter(frame: WalkFrame): T | null;
  /** A member that is not a container; a finding stops the walk. */
  scalar(value: unknown, frame: WalkFrame, member: string | number): T | null;
  /** Containers walked past, never entered (opaque bytes). */
  opaque?(child: object): boolean;
}

/**
 * Walks a parsed container without recursion (a hostile body cannot exhaust the stack) in
 * document order, an object's keys (in `enter`) before its values, and returns the first finding.
 * Linear in the size of the value and allocation-free per scalar: one frame per container, so
 * paths are built only for a finding. Used by the hostile-input check and the identity-number
 * check (src/common/identity/identity-walk.ts).
 */
export function firstFinding<T>(root: object, visit: WalkVisitor<T>): T | null {
  const open = (container: object, parent: WalkFrame | null, at: string | number | null) => {
    const frame: WalkFrame = {
      container,
      keys: Array.isArray(container) ? null : Object.keys(container),
      next: 0,
      level: (parent?.level ?? 0) + 1,
      parent,
      at,
    };
    return { frame, found: visit.enter(frame) };
  };
  const first = open(root, null, null);
  if (first.found !== null) {
    return first.found;
  }
  const stack: WalkFrame[] = [first.frame];
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
      if (visit.opaque?.(child)) {
        continue;
      }
      const entered = open(child, frame, member);
      if (entered.found !== null) {
        return entered.found;
      }
      stack.push(entered.frame);
    } else {
      const found = visit.scalar(child, frame, member);
      if (found !== null) {
        return found;
      }
    }
  }
  return null;
}
