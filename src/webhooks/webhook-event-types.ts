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
  'forex.booked',
  'forex.returned',
  'forex.rejected',
  'recurring.pre_debit_notice',
  'recurring.charge_cancelled',
  'mandate.amendment_requested',
  'mandate.amendment_authorised',
  'mandate.amendment_declined',
  'recurring.post_debit_alert',
  'capture.refund_started',
  'capture.refunded',
  'personal_data.breach_notice',
  'party.closed',
] as const;

export const ALL_EVENTS = '*';

/**
 * ACP order events (src/orders). Never subscribable by sellers: they go only to `acp_order`
 * endpoints, which receive nothing else (the dispatcher's fan-out matches on the endpoint kind).
 */
export const ORDER_EVENT_TYPES = ['order_create', 'order_update'] as const;
export type OrderEventType = (typeof ORDER_EVENT_TYPES)[number];
