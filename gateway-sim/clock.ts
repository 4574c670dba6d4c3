/**
 * The simulator's notion of now. Every timestamp it writes (created_at, settled_at) and every
 * expiry it checks (tokens, payment links, Reserve Pay blocks) reads this clock, which tests move
 * with `POST /__sim/clock`. Webhook retry timers run on real time: they pace delivery only.
 */
export class SimClock {
  private offsetMs = 0;

  /** `base` is where time comes from (default Date.now); a test may pass its app's clock. */
  constructor(private readonly base: () => number = Date.now) {}

  nowMs(): number {
    return this.base() + this.offsetMs;
  }

  /** Unix seconds, as the gateway's timestamps are. */
  nowSec(): number {
    return Math.floor(this.nowMs() / 1000);
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }

  /** Jump to an absolute time; the clock keeps running from there. */
  set(nowMs: number): void {
    this.offsetMs = nowMs - this.base();
  }

  reset(): void {
    this.offsetMs = 0;
  }
}
