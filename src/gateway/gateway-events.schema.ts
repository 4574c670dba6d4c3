import { z } from 'zod';

import { findHostileValue } from '../common/http/hostile-input';
import type {
  GatewayOrder,
  GatewayPayment,
  GatewayPaymentLink,
  GatewayRefund,
  GatewayReserveBlock,
  GatewaySettlement,
  GatewayToken,
  GatewayWebhookEvent,
  GatewayWebhookEventName,
} from '../rails/gateway/gateway-client.types';

/**
 * The schema of an inbound gateway event (docs/gateway.md "Going live on the gateway"), checked after its
 * signature and before any of it is used. Permissive about fields we do not read (the gateway adds
 * fields: every object is a loose object and keeps them), strict about the ones we read: their
 * types, integer paise that are safe and never negative, known statuses. Each event type the
 * service uses requires the entity it reads; an event type we do not know needs only the envelope
 * (it is recorded as `ignored`). A new field read in apply() belongs here first.
 */

export const GATEWAY_EVENT_NAMES = [
  'payment.authorized',
  'payment.captured',
  'payment.failed',
  'order.paid',
  'refund.created',
  'refund.processed',
  'refund.failed',
  'token.confirmed',
  'token.rejected',
  'token.cancelled',
  'payment_link.paid',
  'payment_link.cancelled',
  'settlement.processed',
  'reserve_pay.block.active',
  'reserve_pay.block.released',
] as const satisfies readonly GatewayWebhookEventName[];

const KNOWN_EVENTS: ReadonlySet<string> = new Set(GATEWAY_EVENT_NAMES);

/** A bounded metric label for an event type: a known name, else `other`. */
export function gatewayEventLabel(type: string | null): string {
  return type !== null && KNOWN_EVENTS.has(type) ? type : 'other';
}

const id = z.string().min(1).max(255);
/** Integer paise (or counts): a safe integer, never negative. */
const paise = z.int().min(0);
const text = z.string().max(4096);
const optionalText = text.nullable().optional();

const order = z.looseObject({
  id,
  amount: paise.optional(),
  amount_paid: paise.optional(),
  amount_due: paise.optional(),
  currency: text.optional(),
  receipt: optionalText,
  status: z.enum(['created', 'attempted', 'paid']).optional(),
});

const payment = z.looseObject({
  id,
  order_id: id,
  amount: paise,
  currency: z.string().min(1).max(16),
  status: z.enum(['created', 'authorized', 'captured', 'failed']),
  captured: z.boolean().optional(),
  amount_refunded: paise.optional(),
  fee: paise.optional(),
  tax: paise.optional(),
  error_code: optionalText,
  error_description: optionalText,
  error_reason: optionalText,
  token_id: id.nullable().optional(),
  customer_id: id.nullable().optional(),
});

const refund = z.looseObject({
  id,
  payment_id: id,
  amount: paise,
  currency: z.string().min(1).max(16).optional(),
  status: z.enum(['pending', 'processed', 'failed']),
  receipt: id.nullable().optional(),
});

const token = z.looseObject({
  id,
  customer_id: id.optional(),
  max_amount: paise.optional(),
  recurring_details: z
    .looseObject({ status: z.enum(['initiated', 'confirmed', 'rejected', 'cancelled']) })
    .optional(),
});

// Payment links, settlements: recorded (payment_link.paid is applied through its payment entity);
// their own fields are typed when present.
const paymentLink = z.looseObject({
  id,
  status: z.enum(['created', 'paid', 'cancelled', 'expired']).optional(),
  amount: paise.optional(),
  amount_paid: paise.optional(),
  order_id: id.optional(),
  reference_id: text.optional(),
});

const settlement = z.looseObject({
  id,
  // Net of refunds, fees and tax: may be below zero on a day of refunds.
  amount: z.int().optional(),
  fees: paise.optional(),
  tax: paise.optional(),
  utr: text.optional(),
  status: z.string().max(64).optional(),
});

// reserve_pay.block.* moves the block forward and records what was released.
const reserveBlock = z.looseObject({
  id,
  released: paise,
  status: z.enum(['created', 'active', 'released', 'expired']).optional(),
  amount: paise.optional(),
  debited: paise.optional(),
  customer_id: id.optional(),
});

// The schemas produce what the code reads, with the wire types' own types.
type Reads<T, K extends keyof T> = z.ZodType<Pick<T, K>>;
const checks: [
  Reads<GatewayOrder, 'id'>,
  Reads<GatewayPayment, 'id' | 'order_id' | 'amount' | 'status'>,
  Reads<GatewayRefund, 'id' | 'payment_id' | 'amount' | 'status'>,
  Reads<GatewayToken, 'id'>,
  Reads<GatewayPaymentLink, 'id'>,
  Reads<GatewaySettlement, 'id'>,
  Reads<GatewayReserveBlock, 'id' | 'released'>,
] = [order, payment, refund, token, paymentLink, settlement, reserveBlock];
void checks;

const entityOf = <S extends z.ZodType>(s: S) => z.looseObject({ entity: s });

/** Every entity we may read, checked wherever it appears; each event type then requires its own. */
const payloadBase = {
  payment: entityOf(payment).optional(),
  order: entityOf(order).optional(),
  refund: entityOf(refund).optional(),
  token: entityOf(token).optional(),
  payment_link: entityOf(paymentLink).optional(),
  settlement: entityOf(settlement).optional(),
  reserve_pay_block: entityOf(reserveBlock).optional(),
};

const payloadWith = (required: Partial<Record<keyof typeof payloadBase, z.ZodType>>) =>
  z.looseObject({ ...payloadBase, ...required });

const withPayment = payloadWith({ payment: entityOf(payment) });
const withRefund = payloadWith({ refund: entityOf(refund) });
const withToken = payloadWith({ token: entityOf(token) });
const withLink = payloadWith({ payment_link: entityOf(paymentLink) });

const PAYLOADS: Record<GatewayWebhookEventName, z.ZodType> = {
  'payment.authorized': withPayment,
  'payment.captured': withPayment,
  'payment.failed': withPayment,
  'order.paid': payloadWith({ payment: entityOf(payment), order: entityOf(order) }),
  'refund.created': withRefund,
  'refund.processed': withRefund,
  'refund.failed': withRefund,
  'token.confirmed': withToken,
  'token.rejected': withToken,
  'token.cancelled': withToken,
  'payment_link.paid': withLink,
  'payment_link.cancelled': withLink,
  'settlement.processed': payloadWith({ settlement: entityOf(settlement) }),
  'reserve_pay.block.active': payloadWith({ reserve_pay_block: entityOf(reserveBlock) }),
  'reserve_pay.block.released': payloadWith({ reserve_pay_block: entityOf(reserveBlock) }),
};

const envelope = z.looseObject({
  event: z.string().min(1).max(128),
  payload: z.looseObject({}),
});

/** The ids an event is filed under in gateway_events (order, payment, refund). */
export interface GatewayEventIds {
  orderId: string | null;
  paymentId: string | null;
  refundId: string | null;
}

export type ParsedGatewayEvent =
  | { ok: true; event: GatewayWebhookEvent; ids: GatewayEventIds }
  | {
      ok: false;
      /** The `event` field when it is a string (else null): what gateway_events.type records. */
      type: string | null;
      /** The body as parsed when it can be stored (JSON, no hostile values), else null. */
      stored: Record<string, unknown> | null;
      /** What failed, naming fields by path; never a value from the body. */
      reason: string;
    };

const REASON_MAX = 500;

function summarise(issues: readonly z.core.$ZodIssue[], root: string[]): string {
  const parts = issues.slice(0, 3).map((i) => {
    const path = [...root, ...i.path.map(String)].join('.');
    return `${path || '$'}: ${i.message}`;
  });
  const more = issues.length > 3 ? ` (+${issues.length - 3} more)` : '';
  return (parts.join('; ') + more).slice(0, REASON_MAX);
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * The signed raw body as a gateway event, or why not. Never throws: bytes that are not UTF-8,
 * text that is not JSON, a JSON value that is not an object, input every route refuses
 * (hostile-input.ts: nesting, NUL, lone surrogates, unsafe numbers, prototype keys) and a shape
 * that does not match the schema are each a reason.
 */
export function parseGatewayEvent(raw: Buffer): ParsedGatewayEvent {
  let body: unknown;
  try {
    body = JSON.parse(decoder.decode(raw));
  } catch {
    return { ok: false, type: null, stored: null, reason: 'the body is not UTF-8 JSON' };
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { ok: false, type: null, stored: null, reason: 'the body is not a JSON object' };
  }
  const record = body as Record<string, unknown>;
  const type = typeof record.event === 'string' ? record.event.slice(0, 128) : null;
  const hostile = findHostileValue(body);
  if (hostile) {
    // Not storable as jsonb (or not safely): kept out, the reason says where.
    const reason = `refused input: ${hostile.message}`.slice(0, REASON_MAX);
    return { ok: false, type: type && findHostileValue(type) ? null : type, stored: null, reason };
  }
  const env = envelope.safeParse(body);
  if (!env.success) {
    return { ok: false, type, stored: record, reason: summarise(env.error.issues, []) };
  }
  const schema = PAYLOADS[env.data.event as GatewayWebhookEventName] as z.ZodType | undefined;
  if (schema) {
    const payload = schema.safeParse(env.data.payload);
    if (!payload.success) {
      return {
        ok: false,
        type,
        stored: record,
        reason: summarise(payload.error.issues, ['payload']),
      };
    }
  }
  // Checked above: the fields the service reads have the wire types' types.
  const event = record as unknown as GatewayWebhookEvent;
  return { ok: true, event, ids: schema ? idsOf(event) : noIds };
}

const noIds: GatewayEventIds = { orderId: null, paymentId: null, refundId: null };

function idsOf(event: GatewayWebhookEvent): GatewayEventIds {
  const payment = event.payload.payment?.entity;
  const refund = event.payload.refund?.entity;
  return {
    orderId: payment?.order_id ?? event.payload.order?.entity.id ?? null,
    paymentId: payment?.id ?? refund?.payment_id ?? null,
    refundId: refund?.id ?? null,
  };
}
