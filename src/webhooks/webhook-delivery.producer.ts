import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bull';

import {
  DeliverWebhookJob,
  JOB_PRESETS,
  JOBS,
  QUEUES,
  webhookJobId,
} from '../common/queues/queues';

/** How long an enqueue may take before we treat Redis as down. */
export const ENQUEUE_TIMEOUT_MS = 2000;

export class QueueUnavailableError extends Error {}

/**
 * The only caller of `add` on the webhooks queue. Fails fast when Redis is away: ioredis would
 * otherwise buffer the command and the caller (the dispatcher's transaction, holding outbox row
 * locks) would hang until Redis returned.
 */
@Injectable()
export class WebhookDeliveryProducer {
  constructor(@InjectQueue(QUEUES.webhooks) private readonly queue: Queue) {}

  get ready(): boolean {
    return this.queue.client.status === 'ready';
  }

  async enqueue(job: DeliverWebhookJob, delayMs = 0): Promise<void> {
    if (!this.ready) {
      throw new QueueUnavailableError(`redis is ${this.queue.client.status}`);
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new QueueUnavailableError(`enqueue took over ${ENQUEUE_TIMEOUT_MS} ms`)),
        ENQUEUE_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([
        this.queue.add(JOBS.deliverWebhook, job satisfies DeliverWebhookJob, {
          ...JOB_PRESETS.webhookAttempt,
          jobId: webhookJobId(job),
          delay: delayMs > 0 ? delayMs : undefined,
        }),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}
