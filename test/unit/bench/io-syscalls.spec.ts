import { closeSync, openSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { cpuDuring, ioSyscalls } from '../../../bench/rss';

describe('bench: read/write system calls of a process (bench/rss.ts)', () => {
  it('counts each write the process makes, and answers null for a process that is gone', async () => {
    const fd = openSync(join(tmpdir(), `io-syscalls-${process.pid}`), 'w');
    try {
      const measured = await cpuDuring(process.pid, async () => {
        for (let i = 0; i < 50; i++) {
          writeSync(fd, 'x');
        }
      });
      expect(measured.syscalls).toBeGreaterThanOrEqual(50);
      expect(ioSyscalls(process.pid)).toBeGreaterThan(0);
    } finally {
      closeSync(fd);
    }
    expect(ioSyscalls(2 ** 22 + 1)).toBeNull();
  });
});
