/** Latency arithmetic shared by the load generator's runners. */

export interface LatencySummary {
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  max: number;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) {
    return 0;
  }
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export function round(n: number): number {
  return Math.round(n * 100) / 100;
}

/** Percentiles, mean and max of latencies in ms (sorts the array in place). */
export function summarise(latencies: number[]): LatencySummary {
  latencies.sort((a, b) => a - b);
  const sum = latencies.reduce((a, b) => a + b, 0);
  return {
    p50: round(percentile(latencies, 50)),
    p95: round(percentile(latencies, 95)),
    p99: round(percentile(latencies, 99)),
    mean: round(latencies.length ? sum / latencies.length : 0),
    max: round(latencies[latencies.length - 1] ?? 0),
  };
}
