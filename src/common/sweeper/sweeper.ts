import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
} from '@nestjs/common';

import { APP_CONFIG, AppConfig } from '../../config/app.config';

export type SweepFn = () => Promise<unknown>;

interface Task {
  fn: SweepFn;
  everyMs: number;
  lastRunAt: number;
}

/**
 * One in-process poller for periodic database sweeps (webhook outbox dispatch and overdue
 * deliveries, approval expiry, payments waiting on an ended mandate or token, expired sessions; the
 * full list is in docs/architecture.md "Start-up registrations"). Postgres is the source of truth for
 * work that must not be lost, and Redis may be down, so these sweeps run on a plain timer rather
 * than as Bull repeatable jobs.
 *
 * Modules call `register(name, fn, { everyMs })` in onModuleInit; the poller runs each due task
 * once per tick (WEBHOOK_DISPATCH_INTERVAL_MS), sequentially, never overlapping itself. Tasks must
 * be safe with several instances running (claim rows with FOR UPDATE SKIP LOCKED, or take their
 * locks in the documented order and re-check state under them). The timer is
 * unref'd and only started when RUN_WORKERS is true.
 */
@Injectable()
export class Sweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(Sweeper.name);
  private readonly tasks = new Map<string, Task>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** everyMs: run at most this often (default: every tick). */
  register(name: string, fn: SweepFn, opts: { everyMs?: number } = {}): void {
    if (this.tasks.has(name)) {
      throw new Error(`sweep ${name} is already registered`);
    }
    this.tasks.set(name, { fn, everyMs: opts.everyMs ?? 0, lastRunAt: 0 });
  }

  onApplicationBootstrap(): void {
    if (!this.config.runWorkers) {
      return;
    }
    this.timer = setInterval(() => void this.tick(), this.config.webhookDispatchIntervalMs);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Runs every due task once; a tick still running makes this one a no-op. */
  tick(): Promise<void> {
    if (!this.running) {
      this.running = this.runDue().finally(() => {
        this.running = undefined;
      });
    }
    return this.running;
  }

  private async runDue(): Promise<void> {
    for (const [name, task] of this.tasks) {
      const now = Date.now();
      if (now - task.lastRunAt < task.everyMs) {
        continue;
      }
      task.lastRunAt = now;
      try {
        await task.fn();
      } catch (err) {
        this.logger.warn(
          { sweep: name, err: (err as Error).message },
          'sweep failed; retried next tick',
        );
      }
    }
  }
}
