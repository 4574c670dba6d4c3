import type {
  GatewayOrderStatus,
  GatewayPaymentLinkStatus,
  GatewayPaymentStatus,
  GatewayRefundStatus,
  GatewayReserveBlockStatus,
  GatewaySettlement,
  GatewayTokenStatus,
} from './gateway-client.types';

/**
 * The one documented order of every state the gateway drives (docs/gateway.md "Going live on the gateway",
 * issue 21 item 3 "Never backwards"), as data: for each entity its states and the moves the
 * gateway itself makes (gateway-client.types.ts, gateway-sim/: tokens.ts, reserve.ts, links.ts,
 * payments.ts, refunds.ts, settlements.ts). Webhooks, our own reads, the reconcilers and API
 * answers may arrive in any order; a write only ever moves a state along these arrows (or their
 * chains: an event in between may be late or lost), never back and never sideways. A state with
 * no arrow out is final.
 *
 *   order       created → attempted → paid                        (not stored: gateway_orders
 *                                                                   records only what it pays)
 *   payment     created → authorized → captured; created, authorized → failed
 *               (our side: the intent, processing → settled | failed, PaymentsService.applyDebit)
 *   refund      pending → processed | failed
 *               (our side: the refund, processing → succeeded | failed, RefundsService.applyCredit)
 *   token       initiated → confirmed → cancelled; initiated → rejected → cancelled
 *               (a payer may cancel before authorising: initiated → cancelled)
 *   block       created → active → released | expired; created → released | expired
 *   link        created → paid | cancelled | expired
 *               (our side: a hosted checkout of channel `link`, hosted-checkout.state.ts)
 *   settlement  processed only (recorded once, gateway_settlements)
 *   settlement line  missing → reported; a line matched to our transfer never returns to unknown
 *
 * Enforced in SQL where the write happens ({@link advanceSql}: the UPDATE's own WHERE, so two
 * concurrent writers re-check it on the row they wait for), never by read-then-write.
 */
export const GATEWAY_MOVES = {
  order: {
    created: ['attempted'],
    attempted: ['paid'],
    paid: [],
  } satisfies Moves<GatewayOrderStatus>,
  payment: {
    created: ['authorized', 'failed'],
    authorized: ['captured', 'failed'],
    captured: [],
    failed: [],
  } satisfies Moves<GatewayPaymentStatus>,
  refund: {
    pending: ['processed', 'failed'],
    processed: [],
    failed: [],
  } satisfies Moves<GatewayRefundStatus>,
  token: {
    initiated: ['confirmed', 'rejected'],
    confirmed: ['cancelled'],
    rejected: ['cancelled'],
    cancelled: [],
  } satisfies Moves<GatewayTokenStatus>,
  reserveBlock: {
    created: ['active', 'released', 'expired'],
    active: ['released', 'expired'],
    released: [],
    expired: [],
  } satisfies Moves<GatewayReserveBlockStatus>,
  paymentLink: {
    created: ['paid', 'cancelled', 'expired'],
    paid: [],
    cancelled: [],
    expired: [],
  } satisfies Moves<GatewayPaymentLinkStatus>,
  settlement: {
    processed: [],
  } satisfies Moves<GatewaySettlement['status']>,
} as const;

type Moves<S extends string> = Record<S, readonly S[]>;

export type GatewayEntity = keyof typeof GATEWAY_MOVES;
export type GatewayStateOf<E extends GatewayEntity> = keyof (typeof GATEWAY_MOVES)[E] & string;

/** Every state reachable from `from` by one or more moves (events in between may be lost). */
export function reachableFrom<E extends GatewayEntity>(
  entity: E,
  from: GatewayStateOf<E>,
): GatewayStateOf<E>[] {
  const moves = GATEWAY_MOVES[entity] as unknown as Record<string, readonly string[]>;
  const seen = new Set<string>();
  const todo = [...(moves[from] ?? [])];
  while (todo.length) {
    const next = todo.pop() as string;
    if (!seen.has(next)) {
      seen.add(next);
      todo.push(...(moves[next] ?? []));
    }
  }
  return [...seen] as GatewayStateOf<E>[];
}

/** True when `to` lies ahead of `from` in the entity's order (a write from → to is allowed). */
export function movesForward<E extends GatewayEntity>(
  entity: E,
  from: GatewayStateOf<E>,
  to: GatewayStateOf<E>,
): boolean {
  return reachableFrom(entity, from).includes(to);
}

export function isFinal<E extends GatewayEntity>(entity: E, state: GatewayStateOf<E>): boolean {
  return reachableFrom(entity, state).length === 0;
}

/**
 * A SQL condition, true when the row's `column` may move to the state in `target` (a parameter
 * such as `$2`): a CASE over the documented order, built once from {@link GATEWAY_MOVES}. An
 * unknown target, a repeat of the current state or a move backwards is false.
 */
export function advanceSql(entity: GatewayEntity, column: string, target: string): string {
  const moves = GATEWAY_MOVES[entity] as unknown as Record<string, readonly string[]>;
  const states = Object.keys(moves);
  const whens = states
    .map((to) => {
      const from = states.filter((s) => movesForward(entity, s as never, to as never));
      return from.length
        ? `WHEN '${to}' THEN ${column} IN (${from.map((s) => `'${s}'`).join(', ')})`
        : null;
    })
    .filter((w): w is string => w !== null);
  return `(CASE ${target}::text ${whens.join(' ')} ELSE false END)`;
}
