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

/** One try, no Bull retry; a failed job is kept (the last 100) for the dashboard. */
const SINGLE_SHOT = { attempts: 1, removeOnComplete: true, removeOnFail: 100 } as const;

/** Five tries, exponential backoff from 1 s; the last 1,000 failed jobs are kept. */
const RETRIED = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: true,
  removeOnFail: 1000,
} as const;

/**
 * Job options by what the job is for: each producer (`*.producer.ts`, the only callers of `add`)
 * spreads its preset and adds only the job id and delay of the one job. The option values are
 * listed once here.
 */
export const JOB_PRESETS = {
  /**
   * JOBS.expireApproval (ApprovalExpiryProducer): the processor throws when Redis fires it before
   * expires_at by our clock, so Bull retries with backoff; the approvals sweep is the safety net.
   */
  approvalExpiry: RETRIED,
  /**
   * JOBS.reconcileRail (RailReconcileProducer): one try; a lost or failed job is found again by
   * the `payments.reconcile-rail` sweep over Postgres.
   */
  railReconcile: SINGLE_SHOT,
  /**
   * JOBS.debitRecurringCharge (RecurringDebitProducer): three tries, exponential backoff from 5 s;
   * the recurring sweep finds a due charge whose job was lost.
   */
  recurringDebit: {
    attempts: 3,
    backoff: { type: 'exponential', delay: 5000 },
    removeOnComplete: true,
    removeOnFail: 100,
  },
  /**
   * The repeatable settlement report pull (SettlementReconcileProducer): one try per run; the next
   * run comes on its interval.
   */
  settlementReconcile: SINGLE_SHOT,
  /**
   * Webhook attempts: retries are our own delayed jobs (schedule + attempt rows in Postgres), so
   * Bull never retries; finished jobs are removed so a stalled delivery can be re-enqueued under
   * the same id by the sweeper.
   */
  webhookAttempt: { attempts: 1, removeOnComplete: true, removeOnFail: true },
} as const;
