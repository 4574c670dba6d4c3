/**
 * The chaos run's only source of randomness (docs/testing.md "Chaos run"): a small seeded
 * generator (mulberry32), so `--seed N` replays the same choices of flows, amounts and kill
 * instants. Timing on a busy machine still varies, so a seed makes a failure likely to recur,
 * not certain.
 */
export class Rng {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    if (!Number.isInteger(min) || !Number.isInteger(max) || max < min) {
      throw new Error(`Rng.int needs integers min <= max (got ${min}, ${max})`);
    }
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) {
      throw new Error('Rng.pick of an empty list');
    }
    return items[Math.floor(this.next() * items.length)];
  }

  /** An independent generator for one part of the run (so adding a flow does not move the kills). */
  fork(label: string): Rng {
    let h = this.seed >>> 0;
    for (let i = 0; i < label.length; i++) {
      h = Math.imul(h ^ label.charCodeAt(i), 0x01000193) >>> 0;
    }
    return new Rng(h);
  }
}

/** `--seed` or a fresh one; always a 31-bit non-negative integer so it prints and parses back. */
export function seedFrom(arg: string | undefined): number {
  if (arg === undefined) {
    return Math.floor(Math.random() * 0x7fffffff);
  }
  if (!/^\d+$/.test(arg) || Number(arg) > 0x7fffffff) {
    throw new Error(`--seed must be an integer 0..${0x7fffffff} (got "${arg}")`);
  }
  return Number(arg);
}
