import { ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';

/** Messages a bench child sends: `{type: 'ready', …}` once, then one reply per request. */
export interface ChildReply {
  type: string;
  [k: string]: unknown;
}

/**
 * A helper process of the bench (a second app instance, the webhook receiver): forked with
 * ts-node, it answers `{type}` requests over IPC. Kept out of the app's process so it never
 * shares the event loop it measures.
 */
export class BenchChild {
  private constructor(
    private readonly child: ChildProcess,
    readonly ready: ChildReply,
  ) {}

  /**
   * `file` under bench/, run with ts-node; or, with `compiled`, an absolute path to JavaScript run
   * by plain node (bench/production.ts), with `env` as its whole environment when given.
   */
  static async start(
    file: string,
    timeoutMs = 60_000,
    opts: { compiled?: boolean; env?: NodeJS.ProcessEnv } = {},
  ): Promise<BenchChild> {
    const child = fork(opts.compiled ? file : join(__dirname, file), [], {
      execArgv: opts.compiled ? [] : ['-r', 'ts-node/register/transpile-only'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      ...(opts.env ? { env: opts.env } : {}),
    });
    const ready = await new Promise<ChildReply>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${file} not ready in ${timeoutMs} ms`)),
        timeoutMs,
      );
      child.once('exit', (code) => reject(new Error(`${file} exited (code ${code}) before ready`)));
      child.once('message', (msg: ChildReply) => {
        clearTimeout(timer);
        if (msg.type === 'ready') {
          resolve(msg);
        } else {
          reject(new Error(`${file}: ${JSON.stringify(msg)}`));
        }
      });
    });
    return new BenchChild(child, ready);
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  request<R extends ChildReply>(type: string): Promise<R> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`child exited (code ${code})`));
      this.child.once('exit', onExit);
      this.child.once('message', (msg: R) => {
        this.child.off('exit', onExit);
        resolve(msg);
      });
      this.child.send({ type });
    });
  }

  /** Asks it to close (an app instance shuts down cleanly), then makes sure it is gone. */
  async stop(timeoutMs = 15_000): Promise<void> {
    if (this.child.exitCode !== null) {
      return;
    }
    const exited = new Promise<void>((r) => this.child.once('exit', () => r()));
    this.child.disconnect();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    await exited;
    clearTimeout(timer);
  }
}
