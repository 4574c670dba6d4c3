/** Queue and job names, payload types and option presets, in one place. */
export const QUEUES = {
  maintenance: 'maintenance',
  approvals: 'approvals',
  webhooks: 'webhooks',
  payments: 'payments',
  recurring: 'recurring',
} as const;

export const JOBS = {
  cleanupIdempotency: 'cleanup-idempotency',
  expireApproval: 'expire-approval',
  deliverWebhook: 'deliver-webhook',
  reconcileRail: 'reconcile-rail',
  debitRecurringCharge: 'debit-recurring-charge',
} as const;

/**
 * Payload of JOBS.debitRecurringCharge: a charge on a recurring mandate whose debit_at has come
 * (src/recurring/recurring-charges.service.ts re-reads it under its lock).
 */
export interface DebitChargeJob {
  chargeId: string;
}

/**
 * Payload of JOBS.reconcileRail: an intent (or refund) its request left `processing` because the
 * rail gave no definite answer; the processor asks the rail again (src/payments/rail-reconciler.ts).
 */
export interface ReconcileRailJob {
  kind: 'intent' | 'refund';
  id: string;
}

/** Payload of JOBS.expireApproval: ids only, the processor re-reads state. */
export interface ExpireApprovalJob {
  approvalId: string;
}

/**
 * Payload of JOBS.deliverWebhook: one attempt of one delivery. `seq` is the scheduled attempt
 * number (trigger 'scheduled') or the redelivery request number (trigger 'manual'); the
 * processor re-reads the delivery and skips a job whose seq no longer matches.
 */
export interface DeliverWebhookJob {
  deliveryId: string;
  /** The delivery's event: lets the worker wait out the dispatcher's transaction (see processor). */
  eventId: string;
  trigger: 'scheduled' | 'manual';
  seq: number;
}

/** Job id of a webhook attempt: a second enqueue of the same attempt is a no-op. */
export function webhookJobId(job: DeliverWebhookJob): string {
  return `whd-${job.deliveryId}-${job.trigger === 'scheduled' ? 's' : 'm'}${job.seq}`;
}

/** Parallel HTTP attempts per worker process (a slow receiver holds one slot for up to the timeout). */
export const WEBHOOK_DELIVERY_CONCURRENCY = 10;

export const JOB_PRESETS = {
  singleShot: { attempts: 1, removeOnComplete: true, removeOnFail: 100 },
  retried: {
    attempts: 5,
    backoff: { type: 'exponential', delay: 1000 },
    removeOnComplete: true,
    removeOnFail: 1000,
  },
  /**
   * Webhook attempts: retries are our own delayed jobs (schedule + attempt rows in Postgres), so
   * Bull never retries; finished jobs are removed so a stalled delivery can be re-enqueued under
   * the same id by the sweeper.
   */
  webhookAttempt: { attempts: 1, removeOnComplete: true, removeOnFail: true },
} as const;
