import { Process, Processor } from '@nestjs/bull';
import { Logger } from '@nestjs/common';
import type { Job } from 'bull';

import {
  DeliverWebhookJob,
  JOBS,
  QUEUES,
  WEBHOOK_DELIVERY_CONCURRENCY,
} from '../common/queues/queues';
import { AttemptOutcome, WebhookDeliveriesService } from './webhook-deliveries.service';

/** One signed POST per job; stale jobs (delivered, superseded, rolled back) return quietly. */
@Processor(QUEUES.webhooks)
export class WebhookDeliveryProcessor {
  private readonly logger = new Logger(WebhookDeliveryProcessor.name);

  constructor(private readonly deliveries: WebhookDeliveriesService) {}

  @Process({ name: JOBS.deliverWebhook, concurrency: WEBHOOK_DELIVERY_CONCURRENCY })
  async deliver(job: Job<DeliverWebhookJob>): Promise<AttemptOutcome> {
    const outcome = await this.deliveries.attempt(job.data);
    this.logger.log(
      { delivery_id: job.data.deliveryId, trigger: job.data.trigger, seq: job.data.seq, outcome },
      'webhook attempt',
    );
    return outcome;
  }
}
