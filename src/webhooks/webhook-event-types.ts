/**
 * Event types an endpoint may subscribe to. The dispatcher treats types generically (its fan-out
 * SQL sends an outbox row of any type to endpoints subscribed to it or to '*'); this list only
 * bounds what a seller can name at registration. Add a type here when a module starts emitting it.
 */
export const WEBHOOK_EVENT_TYPES = [
  'intent.settled',
  'refund.requested',
  'refund.succeeded',
  'refund.denied',
  'refund.expired',
] as const;

export const ALL_EVENTS = '*';
