import { readdirSync, readFileSync } from 'node:fs';

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

/** Fields after the command name of /proc/<pid>/stat (the name, field 2, may hold spaces). */
function statFields(pid: number | string): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** Clock ticks to seconds: USER_HZ is 100 on Linux's mainstream configurations. */
const TICK_S = 0.01;

/** Seconds of a stat line's fields at `at` and `at + 1` (user + system, own or children's). */
function seconds(f: string[], at: number): number {
  return (Number(f[at]) + Number(f[at + 1])) * TICK_S;
}

/**
 * CPU seconds a process has used, all its threads, user + system (/proc/<pid>/stat fields 14 and
 * 15); null when the process is gone.
 */
export function cpuSeconds(pid: number): number | null {
  const f = statFields(pid);
  return f ? seconds(f, 11) : null;
}

/**
 * CPU seconds of Postgres on this machine, all databases (other work counts too): every live
 * `postgres` process's own time, plus the time of the ended ones, which the postmaster holds as
 * its children's time (fields 16 and 17) once it has reaped them. A backend that ends during a
 * measurement thus moves its time from one part to the other instead of losing it.
 */
export function postgresCpuSeconds(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') {
        continue;
      }
      const f = statFields(entry);
      if (!f) {
        continue;
      }
      total += seconds(f, 11);
      const parent = readFileSync(`/proc/${f[1]}/comm`, 'utf8').trim();
      if (parent !== 'postgres') {
        // The postmaster: the time of its ended children.
        total += seconds(f, 13);
      }
    } catch {
      // gone between the listing and the read
    }
  }
  return total;
}

/**
 * Read and write system calls a process has made, all its threads (/proc/<pid>/io: syscr +
 * syscw; a socket's read, write and writev are among them); null when the process is gone.
 */
export function ioSyscalls(pid: number): number | null {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(io)?.[1] ?? 0);
    return field('syscr') + field('syscw');
  } catch {
    return null;
  }
}

/**
 * CPU seconds used by a process and by Postgres while `run` ran, and the process's read and
 * write system calls (each Postgres round trip, HTTP request and Redis command costs some: a count
 * that other work on the machine does not move).
 */
export async function cpuDuring<T>(
  pid: number,
  run: () => Promise<T>,
): Promise<{ value: T; processS: number; postgresS: number; syscalls: number }> {
  const p0 = cpuSeconds(pid) ?? 0;
  const g0 = postgresCpuSeconds();
  const s0 = ioSyscalls(pid) ?? 0;
  const value = await run();
  return {
    value,
    processS: (cpuSeconds(pid) ?? p0) - p0,
    postgresS: postgresCpuSeconds() - g0,
    syscalls: (ioSyscalls(pid) ?? s0) - s0,
  };
}
