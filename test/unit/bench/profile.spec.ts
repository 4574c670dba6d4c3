import { CpuProfile, partOf, summarise } from '../../../bench/profile';

/** The bench's CPU profile summary (bench/README.md "Benchmark", BENCH_CPU_PROFILE). */
describe('bench CPU profile summary', () => {
  const frame = (url: string, functionName = 'f') => ({ url, functionName });

  it('names the part a frame belongs to', () => {
    expect(partOf(frame('file:///app/node_modules/typeorm/query-builder/x.js'))).toBe('typeorm');
    expect(partOf(frame('/app/node_modules/@nestjs/core/router/x.js'))).toBe('@nestjs/core');
    expect(partOf(frame('/app/node_modules/a/node_modules/pg/lib/client.js'))).toBe('pg');
    expect(partOf(frame('/app/src/payments/payments.service.ts'))).toBe('our code (src/)');
    expect(partOf(frame('node:internal/process/task_queues'))).toBe('node internals');
    expect(partOf(frame('', '(garbage collector)'))).toBe('(garbage collector)');
  });

  it('counts self time per frame and inclusive time once per part on the stack, idle left out', () => {
    // root → typeorm → pg (3 hits) ; root → typeorm → typeorm (1 hit) ; root → src (2 hits) ; idle 10
    const profile: CpuProfile = {
      startTime: 0,
      endTime: 1,
      nodes: [
        { id: 1, callFrame: frame('', '(root)'), children: [2, 5, 6] },
        { id: 2, callFrame: frame('/n/node_modules/typeorm/a.js'), children: [3, 4] },
        { id: 3, callFrame: frame('/n/node_modules/pg/c.js'), hitCount: 3 },
        { id: 4, callFrame: frame('/n/node_modules/typeorm/b.js'), hitCount: 1 },
        { id: 5, callFrame: frame('/r/src/x.ts'), hitCount: 2 },
        { id: 6, callFrame: frame('', '(idle)'), hitCount: 10 },
      ],
    };
    const shares = Object.fromEntries(summarise(profile).map((s) => [s.part, s]));
    expect(shares.typeorm).toEqual({ part: 'typeorm', self_pct: 16.7, inclusive_pct: 66.7 });
    expect(shares.pg).toEqual({ part: 'pg', self_pct: 50, inclusive_pct: 50 });
    expect(shares['our code (src/)']).toEqual({
      part: 'our code (src/)',
      self_pct: 33.3,
      inclusive_pct: 33.3,
    });
    expect(shares['(idle)']).toBeUndefined();
  });
});
