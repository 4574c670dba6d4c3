/** Queue and job names, payload types and option presets (STYLE §4). */
export const QUEUES = {
  maintenance: 'maintenance',
  approvals: 'approvals',
} as const;

export const JOBS = {
  cleanupIdempotency: 'cleanup-idempotency',
  expireApproval: 'expire-approval',
} as const;

/** Payload of JOBS.expireApproval: ids only, the processor re-reads state. */
export interface ExpireApprovalJob {
  approvalId: string;
}

export const JOB_PRESETS = {
  singleShot: { attempts: 1, removeOnComplete: true, removeOnFail: 100 },
  retried: { attempts: 5, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: true, removeOnFail: 1000 },
} as const;
