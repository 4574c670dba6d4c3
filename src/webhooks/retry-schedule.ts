/** ±20%: spreads retries of many deliveries that failed together (a receiver outage). */
export const RETRY_JITTER = 0.2;

/**
 * Delay before the next scheduled attempt after scheduled attempt `made` (1-based) failed, or
 * null when the schedule is exhausted. schedule[i] is the delay before attempt i + 2, so a
 * schedule of n delays allows n + 1 attempts.
 */
export function nextRetryDelayMs(
  schedule: readonly number[],
  made: number,
  random: () => number = Math.random,
): number | null {
  const base = schedule[made - 1];
  if (base === undefined) {
    return null;
  }
  return Math.max(1, Math.round(base * (1 - RETRY_JITTER + 2 * RETRY_JITTER * random())));
}
