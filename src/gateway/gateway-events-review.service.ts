import { Injectable } from '@nestjs/common';

import { Clock } from '../common/clock';
import { GatewayRepository, ReviewOutcome } from '../rails/gateway/gateway.repository';

export interface ReviewEventView {
  id: string;
  type: string;
  outcome: ReviewOutcome;
  orderId: string | null;
  paymentId: string | null;
  reason: string | null;
  receivedAt: string;
  ageSeconds: number;
  age: string;
}

/** "4 d 3 h", "2 h 5 min", "12 min", "40 s": how long an event has waited, to the page's precision. */
export function ageText(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) {
    return `${d} d ${h} h`;
  }
  if (h > 0) {
    return `${h} h ${m} min`;
  }
  return m > 0 ? `${m} min` : `${s} s`;
}

/**
 * What operators review of the gateway's inbound events (/app/ops/gateway-events): the signed
 * events that did not parse (`unprocessable`, with the reason) and the events for no order of ours
 * (`unmatched`), oldest first, with their age on the service clock.
 */
@Injectable()
export class GatewayEventsReview {
  constructor(
    private readonly store: GatewayRepository,
    private readonly clock: Clock,
  ) {}

  async forOperators(
    limit: number,
  ): Promise<{ events: ReviewEventView[]; counts: Record<ReviewOutcome, number> }> {
    const { rows, counts } = await this.store.eventsForReview(limit);
    const now = this.clock.now().getTime();
    return {
      counts,
      events: rows.map((r) => {
        const ageSeconds = Math.max(
          0,
          Math.floor((now - new Date(r.received_at).getTime()) / 1000),
        );
        return {
          id: r.id,
          type: r.type,
          outcome: r.outcome,
          orderId: r.order_id,
          paymentId: r.payment_id,
          reason: r.reason,
          receivedAt: new Date(r.received_at).toISOString(),
          ageSeconds,
          age: ageText(ageSeconds),
        };
      }),
    };
  }
}
