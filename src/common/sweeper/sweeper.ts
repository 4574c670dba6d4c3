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
  /** The run in progress (from a tick or a wake); a task never overlaps itself. */
  inFlight?: Promise<void>;
  /** Woken while running: run once more right after. */
  again: boolean;
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
 *
 * `wake(name)` runs one task now, out of the tick (the outbox dispatcher is woken by a Postgres
 * NOTIFY on commit, see PgListener); wakes that arrive while it runs coalesce into one more run.
 * The tick stays as the safety net for a lost notification.
 */
@Injectable()
export class Sweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(Sweeper.name);
  private readonly tasks = new Map<string, Task>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** everyMs: run at most this often (default: every tick); wakeOnly: never on the tick, only on `wake`. */
  register(name: string, fn: SweepFn, opts: { everyMs?: number; wakeOnly?: boolean } = {}): void {
    if (this.tasks.has(name)) {
      throw new Error(`sweep ${name} is already registered`);
    }
    const everyMs = opts.wakeOnly ? Number.POSITIVE_INFINITY : (opts.everyMs ?? 0);
    this.tasks.set(name, { fn, everyMs, lastRunAt: 0, again: false });
  }

  /** Runs the task now (or once more after its current run); a no-op unless the poller runs here. */
  wake(name: string): void {
    const task = this.tasks.get(name);
    if (task && this.timer) {
      void this.runTask(name, task);
    }
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
    await Promise.all([...this.tasks.values()].map((t) => t.inFlight ?? Promise.resolve()));
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
      await this.runTask(name, task);
    }
  }

  private runTask(name: string, task: Task): Promise<void> {
    if (task.inFlight) {
      task.again = true;
      return task.inFlight;
    }
    task.inFlight = (async () => {
      do {
        task.again = false;
        task.lastRunAt = Date.now();
        try {
          await task.fn();
        } catch (err) {
          this.logger.warn(
            { sweep: name, err: (err as Error).message },
            'sweep failed; retried next tick',
          );
        }
      } while (task.again && this.timer);
    })().finally(() => {
      task.inFlight = undefined;
    });
    return task.inFlight;
  }
}
