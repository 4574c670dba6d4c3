import { getQueueToken } from '@nestjs/bull';
import type { ModuleRef } from '@nestjs/core';
import type { Queue } from 'bull';

import { QUEUES } from './queues';

/**
 * Every Bull queue registered in QueuesModule (one per name in QUEUES), for the ops views that
 * show them all: the metrics (svc_queue_jobs) and the queue dashboard. A queue added to QUEUES
 * and registered there shows up in both without further wiring.
 */
export function allQueues(moduleRef: ModuleRef): Queue[] {
  return Object.values(QUEUES).map((name) =>
    moduleRef.get<Queue>(getQueueToken(name), { strict: false }),
  );
}
