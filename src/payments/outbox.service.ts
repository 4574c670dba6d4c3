import { Injectable } from '@nestjs/common';

import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { Tx } from '../database/tx';
import { BusinessMetrics } from '../metrics/business-metrics';
import { OutboxEvent } from './entities/outbox-event.entity';

/** NOTIFY channel that wakes the webhook dispatcher (src/webhooks/webhook-dispatcher.ts). */
export const OUTBOX_CHANNEL = 'outbox_events';

export interface OutboxInput {
  workspaceId: string;
  agentId: string;
  type: string;
  subjectId: string;
  data: Record<string, unknown>;
}

/**
 * Writes events in the caller's transaction, so an event exists iff the state change committed.
 * (type, subject_id) is unique: the event id is stable for consumers to dedupe on.
 */
@Injectable()
export class OutboxService {
  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly metrics: BusinessMetrics,
  ) {}

  async add(input: OutboxInput): Promise<OutboxEvent> {
    const createdAt = this.clock.now();
    const id = newId('evt');
    const event: OutboxEvent = {
      id,
      workspaceId: input.workspaceId,
      agentId: input.agentId,
      type: input.type,
      subjectId: input.subjectId,
      payload: { id, type: input.type, created_at: createdAt.toISOString(), data: input.data },
      createdAt,
      dispatchedAt: null,
    };
    await this.tx.manager.insert(OutboxEvent, event as never);
    this.metrics.outboxEvent({ type: input.type, data: input.data });
    // Delivered when (and only if) this transaction commits; the dispatcher's poll is the safety net.
    await this.tx.manager.query('SELECT pg_notify($1, $2)', [OUTBOX_CHANNEL, id]);
    return event;
  }
}
