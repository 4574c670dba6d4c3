import { readFileSync } from 'node:fs';

/** Resident set size of a process in MB (Linux /proc; this process: process.memoryUsage). */
export function rssMb(pid: number = process.pid): number {
  if (pid === process.pid) {
    return Math.round(process.memoryUsage().rss / 2 ** 20);
  }
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Math.round(Number(kb) / 1024) : 0;
  } catch {
    return 0;
  }
}

export interface RssSummary {
  /** Per process: the largest sample (MB). */
  max: Record<string, number>;
  /** Per process: the last sample (MB). */
  last: Record<string, number>;
  /** Per process: [seconds since start, MB] every interval. */
  series: Record<string, [number, number][]>;
}

/**
 * Samples the RSS of the app processes (this one, the second instance) every `everyMs` while a
 * scenario runs. Note: this process also holds the orchestrator (a pg client, the HTTP client
 * for seeding and checks, the baseline route), a few MB next to the app.
 */
export class RssSampler {
  private timer: NodeJS.Timeout | undefined;
  private started = 0;
  private series: Record<string, [number, number][]> = {};

  constructor(private readonly pids: () => Record<string, number>) {}

  start(everyMs = 500): void {
    this.stop();
    this.series = {};
    this.started = Date.now();
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
  }

  stop(): RssSummary {
    clearInterval(this.timer);
    this.timer = undefined;
    const max: Record<string, number> = {};
    const last: Record<string, number> = {};
    for (const [name, points] of Object.entries(this.series)) {
      max[name] = Math.max(...points.map(([, mb]) => mb));
      last[name] = points[points.length - 1]?.[1] ?? 0;
    }
    return { max, last, series: this.series };
  }

  private sample(): void {
    const t = Math.round((Date.now() - this.started) / 100) / 10;
    for (const [name, pid] of Object.entries(this.pids())) {
      (this.series[name] ??= []).push([t, rssMb(pid)]);
    }
  }
}
