import { Session } from 'node:inspector/promises';

/**
 * CPU profile of this process (the app, plus the orchestrator's small share) while a scenario runs
 * (`BENCH_CPU_PROFILE=1`, bench/README.md "Benchmark"): V8's sampling profiler through the inspector, the
 * raw profile written next to latest.json (open it in Chrome DevTools), and a summary of where the
 * time went by package, self and inclusive.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  hitCount?: number;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface ProfileShare {
  part: string;
  /** Share of busy (non-idle) samples whose own frame is in this part. */
  self_pct: number;
  /**
   * Share of busy samples with this part anywhere on the stack; null for Node's own frames and
   * V8's buckets, which sit under everything.
   */
  inclusive_pct: number | null;
}

export class CpuProfiler {
  private readonly session = new Session();

  async start(): Promise<void> {
    this.session.connect();
    await this.session.post('Profiler.enable');
    await this.session.post('Profiler.setSamplingInterval', { interval: 500 });
    await this.session.post('Profiler.start');
  }

  async stop(): Promise<CpuProfile> {
    const { profile } = (await this.session.post('Profiler.stop')) as { profile: CpuProfile };
    await this.session.post('Profiler.disable');
    this.session.disconnect();
    return profile;
  }
}

/** What a frame belongs to: an npm package, our src/, the bench, Node itself, or V8's buckets. */
export function partOf(frame: ProfileNode['callFrame']): string {
  const { url, functionName } = frame;
  const pkg = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) {
    return pkg[1];
  }
  if (url.includes('/src/')) {
    return 'our code (src/)';
  }
  if (url.includes('/bench/')) {
    return 'bench orchestrator';
  }
  if (url.startsWith('node:')) {
    return 'node internals';
  }
  if (!url) {
    return functionName.startsWith('(') ? functionName : 'native';
  }
  return 'other';
}

/** Parts whose frames sit under every stack (the event loop, promise jobs): inclusive says nothing. */
const UNDERNEATH = new Set(['node internals', 'native', 'other']);

/**
 * Self and inclusive shares per part over the busy samples (idle left out). Inclusive counts a
 * sample once per part present on its stack, so TypeORM's inclusive share includes the pg calls
 * it makes.
 */
export function summarise(profile: CpuProfile, top = 14): ProfileShare[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) {
    for (const c of n.children ?? []) {
      parent.set(c, n.id);
    }
  }
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let busy = 0;
  for (const n of profile.nodes) {
    const hits = n.hitCount ?? 0;
    const part = partOf(n.callFrame);
    if (hits === 0 || part === '(idle)') {
      continue;
    }
    busy += hits;
    self.set(part, (self.get(part) ?? 0) + hits);
    const onStack = new Set<string>();
    for (let id: number | undefined = n.id; id !== undefined; id = parent.get(id)) {
      const node = byId.get(id);
      if (node && node.callFrame.functionName !== '(root)') {
        onStack.add(partOf(node.callFrame));
      }
    }
    for (const p of onStack) {
      inclusive.set(p, (inclusive.get(p) ?? 0) + hits);
    }
  }
  const pct = (x: number) => (busy === 0 ? 0 : Math.round((1000 * x) / busy) / 10);
  return [...inclusive.keys()]
    .map((part) => ({
      part,
      self_pct: pct(self.get(part) ?? 0),
      inclusive_pct:
        UNDERNEATH.has(part) || part.startsWith('(') ? null : pct(inclusive.get(part) ?? 0),
    }))
    .sort((a, b) => (b.inclusive_pct ?? b.self_pct) - (a.inclusive_pct ?? a.self_pct))
    .slice(0, top);
}

export function profileLines(shares: ProfileShare[]): string[] {
  return [
    '  CPU profile of the app process (busy samples; inclusive = anywhere on the stack):',
    ...shares.map(
      (s) =>
        `    ${s.part.padEnd(34)} self ${s.self_pct.toFixed(1).padStart(5)} %   inclusive ${s.inclusive_pct === null ? '      —' : `${s.inclusive_pct.toFixed(1).padStart(5)} %`}`,
    ),
  ];
}
