import { Injectable } from '@nestjs/common';

import { Clock } from '../common/clock';
import { Tx } from '../database/tx';
import { MetricsRegistry } from './metrics-registry';

/** Decline and rail codes are ours (snake_case); anything else is one label, so a label set stays bounded. */
const CODE = /^[a-z][a-z0-9_]{0,63}$/;

export function codeLabel(code: string | null | undefined): string {
  return code && CODE.test(code) ? code : 'other';
}

/** Event types are ours too (`intent.settled`, `order_create`). */
const EVENT_TYPE = /^[a-z][a-z0-9_.]{0,63}$/;

function eventTypeLabel(type: string): string {
  return EVENT_TYPE.test(type) ? type : 'other';
}

/** Refund state changes, one refund.* outbox event each (src/refunds/refunds.service.ts). */
const REFUND_EVENT = /^refund\.(requested|succeeded|denied|expired|failed)$/;

export interface PaymentOutcomeFacts {
  status: string;
  declineCode: string | null;
  amountPaise: number;
}

export interface WebhookAttemptFacts {
  eventType: string;
  /** What the attempt did (WebhookDeliveriesService AttemptOutcome of a sent request). */
  result: string;
  /** Attempts the delivery has made, this one included. */
  attempts: number;
  /** Set when this attempt took the delivery to its outcome: first 2xx, or failed for good. */
  reached: 'delivered' | 'failed' | null;
  /** For intent.settled events: the intent's settled_at (from the event data). */
  settledAt: string | null;
}

/**
 * Business counters, counted when the outcome commits: callers report inside the transaction
 * that writes the outcome, and the count happens in its after-commit callback (src/database/tx.ts),
 * so a rolled-back, retried or savepoint-discarded attempt counts nothing and a committed one
 * counts once.
 */
@Injectable()
export class BusinessMetrics {
  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly metrics: MetricsRegistry,
  ) {}

  /** A payment intent reached `status` (settled, declined, failed, requires_approval) in this transaction. */
  payment(intent: PaymentOutcomeFacts): void {
    const outcome = intent.status;
    if (!['settled', 'declined', 'failed', 'requires_approval'].includes(outcome)) {
      return;
    }
    const reason =
      outcome === 'declined' || outcome === 'failed' ? codeLabel(intent.declineCode) : 'none';
    const amount = intent.amountPaise;
    this.tx.afterCommit(() => {
      this.metrics.payments.inc({ outcome, reason });
      this.metrics.paymentAmount.inc({ outcome }, amount);
    });
  }

  /** An outbox event was written in this transaction; refund.* events are refund state changes. */
  outboxEvent(event: { type: string; data: Record<string, unknown> }): void {
    const state = REFUND_EVENT.exec(event.type)?.[1];
    if (!state) {
      return;
    }
    const amount = event.data.amount_paise;
    this.tx.afterCommit(() => {
      this.metrics.refunds.inc({ state });
      if (typeof amount === 'number' && Number.isSafeInteger(amount)) {
        this.metrics.refundAmount.inc({ state }, amount);
      }
    });
  }

  /** A signed gateway event was stored unprocessable in this transaction; the label is bounded by the caller. */
  gatewayEventUnprocessable(eventType: string): void {
    this.tx.afterCommit(() =>
      this.metrics.gatewayEventsUnprocessable.inc({ event_type: eventType }),
    );
  }

  /** One webhook attempt, reported after its record committed (WebhookDeliveriesService.attempt). */
  webhookAttempt(a: WebhookAttemptFacts): void {
    const eventType = eventTypeLabel(a.eventType);
    const settledAt = a.settledAt === null ? NaN : Date.parse(a.settledAt);
    this.tx.afterCommit(() => {
      this.metrics.webhookAttempts.inc({ event_type: eventType, result: a.result });
      if (!a.reached) {
        return;
      }
      const labels = { event_type: eventType, outcome: a.reached };
      this.metrics.webhookDeliveries.inc(labels);
      this.metrics.webhookDeliveryAttempts.observe(labels, a.attempts);
      if (a.reached === 'delivered' && Number.isFinite(settledAt)) {
        const seconds = (this.clock.now().getTime() - settledAt) / 1000;
        this.metrics.settleToDelivery.observe(Math.max(0, seconds));
      }
    });
  }
}
