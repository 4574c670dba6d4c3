import { ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';

import type { ChildMessage, FlowJob, FlowResult, LoadJob, LoadResult } from './protocol';

/**
 * The orchestrator's handle on the load generator child (bench/load-generator.ts). Autocannon
 * runs there, in its own process, so it never competes with the app for this event loop.
 */
export class LoadGenerator {
  private constructor(private readonly child: ChildProcess) {}

  static start(): LoadGenerator {
    const child = fork(join(__dirname, 'load-generator.ts'), [], {
      execArgv: ['-r', 'ts-node/register/transpile-only'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return new LoadGenerator(child);
  }

  run(job: LoadJob): Promise<LoadResult> {
    return this.send<LoadResult>(job);
  }

  /** The full-flow scenario's virtual agents (bench/flow-agents.ts), in the same child. */
  runFlow(job: FlowJob): Promise<FlowResult> {
    return this.send<FlowResult>(job);
  }

  private send<R>(job: LoadJob | FlowJob): Promise<R> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) =>
        reject(new Error(`load generator exited (code ${code}) during ${job.name}`));
      this.child.once('exit', onExit);
      this.child.once('message', (msg: ChildMessage<R>) => {
        this.child.off('exit', onExit);
        if (msg.ok) {
          resolve(msg.result);
        } else {
          reject(new Error(`load generator failed during ${job.name}: ${msg.error}`));
        }
      });
      this.child.send(job);
    });
  }

  stop(): void {
    if (this.child.exitCode === null) {
      this.child.kill();
    }
  }
}
