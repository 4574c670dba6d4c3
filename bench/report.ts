import type { Check, ScenarioOutcome } from './scenarios';

export function rps(o: ScenarioOutcome): number {
  return o.result.elapsedS > 0 ? Math.round((o.result.responses / o.result.elapsedS) * 10) / 10 : 0;
}

function pad(cells: string[], widths: number[]): string {
  return cells.map((c, i) => (i <= 1 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
}

/**
 * One row per scenario: throughput, latency percentiles, failures, the app's largest RSS while it
 * ran, and (once the baseline is known) what one of its units costs in baseline requests:
 * baseline req/s ÷ the row's req/s (flows/s for the full-flow rows, completes/s for completes).
 */
export function scenarioTable(outcomes: ScenarioOutcome[], baselineRps?: number): string {
  const header = [
    '#',
    'scenario',
    'req/s',
    'p50 ms',
    'p95 ms',
    'p99 ms',
    'non-2xx',
    'errors',
    'requests',
    'secs',
    'RSS MB',
    'baseline ÷',
  ];
  const rows = outcomes.map((o) => [
    o.id,
    o.title,
    rps(o).toFixed(1),
    o.result.latencyMs.p50.toFixed(1),
    o.result.latencyMs.p95.toFixed(1),
    o.result.latencyMs.p99.toFixed(1),
    String(o.result.non2xx),
    String(o.result.errors + o.result.timeouts),
    String(o.result.responses),
    o.result.elapsedS.toFixed(1),
    o.extra.rss_max_mb === undefined ? '-' : String(o.extra.rss_max_mb),
    baselineRps && rps(o) > 0 ? (baselineRps / rps(o)).toFixed(1) : '-',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = widths.map((w) => '-'.repeat(w)).join('  ');
  return [pad(header, widths), line, ...rows.map((r) => pad(r, widths))].join('\n');
}

export function checkLines(checks: Check[]): string {
  return checks.map((c) => `  ${c.ok ? 'ok  ' : 'FAIL'}  ${c.name}: ${c.detail}`).join('\n');
}

/** The JSON written to bench/results/latest.json (response bodies left out). */
export function resultJson(outcomes: ScenarioOutcome[]): unknown[] {
  return outcomes.map((o) => ({
    id: o.id,
    title: o.title,
    measures: o.measures,
    requests_per_s: rps(o),
    latency_ms: o.result.latencyMs,
    responses: o.result.responses,
    elapsed_s: o.result.elapsedS,
    status_counts: o.result.statusCounts,
    non_2xx: o.result.non2xx,
    errors: o.result.errors,
    timeouts: o.result.timeouts,
    ...o.extra,
    ...o.json,
    checks: o.checks,
  }));
}
