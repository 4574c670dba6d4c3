import parsePrometheusTextFormat, { PrometheusFamily } from 'parse-prometheus-text-format';
import request from 'supertest';

import type { TestApp } from './app';

export interface Scrape {
  text: string;
  families: Map<string, PrometheusFamily>;
  /**
   * Value of a counter or gauge series with exactly these labels (0 when the series is absent,
   * as Prometheus treats a counter that has not moved yet).
   */
  value(name: string, labels?: Record<string, string>): number;
  /**
   * A histogram's `_count` or `_sum` for one label set. Read from the text: the parser merges the
   * series of a labelled histogram into one, so it cannot tell them apart.
   */
  histogram(name: string, labels: Record<string, string>): { count: number; sum: number };
}

function sameLabels(a: Record<string, string> | undefined, b: Record<string, string>): boolean {
  const ak = Object.keys(a ?? {});
  return ak.length === Object.keys(b).length && ak.every((k) => a?.[k] === b[k]);
}

function sampleLine(text: string, name: string, labels: Record<string, string>): number | null {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) {
      continue;
    }
    const got = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]),
    );
    if (sameLabels(got, labels)) {
      return Number(m[3]);
    }
  }
  return null;
}

/** GET /metrics, parsed with the Prometheus text parser (parse-prometheus-text-format). */
export async function scrape(t: TestApp, headers: Record<string, string> = {}): Promise<Scrape> {
  const res = await request(t.url).get('/metrics').set(headers);
  if (res.status !== 200) {
    throw new Error(`GET /metrics answered ${res.status}: ${res.text}`);
  }
  const text = res.text;
  const families = new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f]));
  return {
    text,
    families,
    value(name, labels = {}) {
      const family = families.get(name);
      if (!family) {
        throw new Error(`no metric family ${name}`);
      }
      const sample = family.metrics.find((s) => sameLabels(s.labels, labels));
      return sample?.value === undefined ? 0 : Number(sample.value);
    },
    histogram(name, labels) {
      if (!families.has(name)) {
        throw new Error(`no metric family ${name}`);
      }
      return {
        count: sampleLine(text, `${name}_count`, labels) ?? 0,
        sum: sampleLine(text, `${name}_sum`, labels) ?? 0,
      };
    },
  };
}
