import { InjectQueue, Process, Processor } from '@nestjs/bull';
import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bull';
import { DataSource } from 'typeorm';

import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { Clock } from '../clock';
import { JOBS, QUEUES } from '../queues/queues';
import { deleteExpiredSignatures } from '../signing/seen-signature.repository';
import { deleteExpiredRecords } from './idempotency-record.repository';

/**
 * Deletion of idempotency records and seen signatures past their expiry, all at once. The
 * retention job (src/retention) now does this on its timer, a batch at a time, with the rest of
 * the retention schedule; this processor only answers jobs an older deployment left repeating in
 * Redis, and removes that repeat at start-up.
 */
@Processor(QUEUES.maintenance)
@Injectable()
export class IdempotencyCleanup implements OnApplicationBootstrap {
  private readonly logger = new Logger(IdempotencyCleanup.name);

  constructor(
    private readonly dataSource: DataSource,
    @InjectQueue(QUEUES.maintenance) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.runWorkers) {
      return;
    }
    await this.queue.removeRepeatable(JOBS.cleanupIdempotency, {
      every: 3600_000,
      jobId: 'cleanup-idempotency',
    });
  }

  @Process(JOBS.cleanupIdempotency)
  async cleanup(): Promise<{ idempotency: number; signatures: number }> {
    // The service clock, like every expires_at it compares against (tests move it).
    const now = this.clock.now();
    const result = {
      idempotency: await deleteExpiredRecords(this.dataSource.manager, now),
      signatures: await deleteExpiredSignatures(this.dataSource.manager, now),
    };
    this.logger.log(result, 'expired idempotency records and signatures removed');
    return result;
  }
}
