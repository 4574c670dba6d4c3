import { Injectable } from '@nestjs/common';

import { col, param, sql, SqlFragment, SqlOperand, textOf } from '../../database/fragment';
import { queryFragment } from '../../database/sql';
import { Tx } from '../../database/tx';
import { mandateParts } from '../../mandates/mandate.repository';
import { advanceSql } from './gateway-states';

export type GatewayOrderKind = 'intent' | 'hosted' | 'registration';

export interface GatewayOrderRow {
  id: string;
  kind: GatewayOrderKind;
  subject_id: string;
  amount_paise: string;
}

export type MandateTokenStatus = 'initiated' | 'confirmed' | 'rejected' | 'cancelled';

export interface MandateTokenRow {
  mandate_id: string;
  customer_id: string;
  token_id: string | null;
  registration_order_id: string | null;
  status: MandateTokenStatus;
}

export type ReserveBlockStatus = 'created' | 'active' | 'released' | 'expired';

export interface ReserveBlockRow {
  mandate_id: string;
  customer_id: string;
  block_id: string;
  amount_paise: string;
  status: ReserveBlockStatus;
  released_paise: string | null;
}

/** What a forward-only status write did: null when no row has the id. */
export type AdvanceResult<S extends string> = { moved: boolean; status: S } | null;

/** The forward-only conditions (gateway-states.ts), built once. */
const TOKEN_ADVANCES = advanceSql('token', 'status', '$2');
const BLOCK_ADVANCES = advanceSql('reserveBlock', 'status', '$2');

/** refund_due: a captured payment that cannot settle was held for a full refund (capture-refunds.ts). */
export type GatewayEventOutcome = 'applied' | 'no_change' | 'unmatched' | 'ignored' | 'refund_due';

/** SQL on the gateway's tables for another owner's statement: fragments (docs/architecture.md "Table owners"). */
export const gatewayParts = {
  /** True when the mandate pays on a recurring (AutoPay) token registered with the gateway. */
  hasMandateToken: (mandateId: SqlOperand): SqlFragment =>
    sql`EXISTS (SELECT 1 FROM gateway_mandate_tokens t WHERE t.mandate_id = ${mandateId})`,
  /** Inbound events stored for review, per outcome: [{outcome, n}] or null (scrape-time gauge). */
  eventsForReviewByOutcome: (): SqlFragment =>
    sql`(SELECT json_agg(json_build_object('outcome', g.outcome, 'n', g.n)) FROM
       (SELECT outcome, count(*)::int AS n FROM gateway_events
         WHERE ${EVENTS_FOR_REVIEW_SQL} GROUP BY outcome) g)`,
};

/**
 * Inbound events an operator looks at (/app/ops/gateway-events): signed events that did not parse
 * (`unprocessable`) and events for no order of ours (`unmatched`); partial index
 * gateway_events_review_idx (migration 1764000000100-GatewayEventsEdge).
 */
export const REVIEW_OUTCOMES = ['unprocessable', 'unmatched'] as const;
export type ReviewOutcome = (typeof REVIEW_OUTCOMES)[number];
const EVENTS_FOR_REVIEW_SQL = sql`outcome IN ('unprocessable', 'unmatched')`;
const EVENTS_FOR_REVIEW = textOf(EVENTS_FOR_REVIEW_SQL);

export interface ReviewEventRow {
  id: string;
  type: string;
  outcome: ReviewOutcome;
  order_id: string | null;
  payment_id: string | null;
  reason: string | null;
  received_at: Date;
}

/**
 * The gateway tables (migration 1763700001600-GatewayRail): the orders we opened and what each
 * pays, the mandates' recurring tokens, and the inbound events. All SQL of src/gateway lives here;
 * every call joins the ambient transaction (Tx) or runs on its own.
 */
@Injectable()
export class GatewayRepository {
  constructor(private readonly tx: Tx) {}

  /**
   * The oldest unmatched event whose order is now known and not yet reconciled, locked (SKIP
   * LOCKED: another instance's sweep takes the next one); null when there is none.
   */
  async lockNextUnmatchedWithKnownOrder<P>(): Promise<{ id: string; payload: P } | null> {
    const [row] = await this.tx.manager.query<{ id: string; payload: P }[]>(
      `SELECT e.id, e.payload FROM gateway_events e JOIN gateway_orders o ON o.id = e.order_id
        WHERE e.outcome = 'unmatched' AND e.reconciled_at IS NULL
        ORDER BY e.received_at LIMIT 1 FOR UPDATE OF e SKIP LOCKED`,
    );
    return row ?? null;
  }

  /** Records what applying a formerly unmatched event did. */
  async markReconciled(id: string, outcome: string, subjectId: string | null): Promise<void> {
    await this.tx.manager.query(
      `UPDATE gateway_events SET outcome = $2, subject_id = $3, reconciled_at = now() WHERE id = $1`,
      [id, outcome, subjectId],
    );
  }

  /** Records what an order pays; a repeat (same order, or same subject) keeps the first row. */
  async recordOrder(
    id: string,
    kind: GatewayOrderKind,
    subjectId: string,
    amountPaise: number,
  ): Promise<void> {
    await this.tx.manager.query(
      `INSERT INTO gateway_orders (id, kind, subject_id, amount_paise) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING`,
      [id, kind, subjectId, amountPaise],
    );
  }

  async findOrder(id: string): Promise<GatewayOrderRow | null> {
    const [row] = await this.tx.manager.query<GatewayOrderRow[]>(
      `SELECT id, kind, subject_id, amount_paise::text FROM gateway_orders WHERE id = $1`,
      [id],
    );
    return row ?? null;
  }

  async orderOf(kind: GatewayOrderKind, subjectId: string): Promise<GatewayOrderRow | null> {
    const [row] = await this.tx.manager.query<GatewayOrderRow[]>(
      `SELECT id, kind, subject_id, amount_paise::text FROM gateway_orders WHERE kind = $1 AND subject_id = $2`,
      [kind, subjectId],
    );
    return row ?? null;
  }

  async mandateToken(mandateId: string): Promise<MandateTokenRow | null> {
    const [row] = await this.tx.manager.query<MandateTokenRow[]>(
      `SELECT mandate_id, customer_id, token_id, registration_order_id, status
         FROM gateway_mandate_tokens WHERE mandate_id = $1`,
      [mandateId],
    );
    return row ?? null;
  }

  /** The first registration of a mandate wins; a concurrent second one keeps it. */
  async recordMandateToken(row: MandateTokenRow): Promise<void> {
    await this.tx.manager.query(
      `INSERT INTO gateway_mandate_tokens (mandate_id, customer_id, token_id, registration_order_id, status)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (mandate_id) DO NOTHING`,
      [row.mandate_id, row.customer_id, row.token_id, row.registration_order_id, row.status],
    );
  }

  /**
   * Token status from the gateway (a webhook or a read), only ever forward along the token's
   * documented order (gateway-states.ts): a late `confirmed` never revives a cancelled token.
   * The condition is the UPDATE's own, so a concurrent writer re-checks it on the row it waited
   * for. Returns the token's status after the call and whether this call moved it; null when no
   * mandate has that token.
   */
  async setTokenStatus(
    tokenId: string,
    status: MandateTokenStatus,
  ): Promise<AdvanceResult<MandateTokenStatus>> {
    // An UPDATE answers [rows, affected count].
    const [moved] = await this.tx.manager.query<[{ status: MandateTokenStatus }[], number]>(
      `UPDATE gateway_mandate_tokens SET status = $2, updated_at = now()
        WHERE token_id = $1 AND ${TOKEN_ADVANCES}
        RETURNING status`,
      [tokenId, status],
    );
    if (moved.length) {
      return { moved: true, status };
    }
    const [row] = await this.tx.manager.query<{ status: MandateTokenStatus }[]>(
      `SELECT status FROM gateway_mandate_tokens WHERE token_id = $1`,
      [tokenId],
    );
    return row ? { moved: false, status: row.status } : null;
  }

  async reserveBlock(mandateId: string): Promise<ReserveBlockRow | null> {
    const [row] = await this.tx.manager.query<ReserveBlockRow[]>(
      `SELECT mandate_id, customer_id, block_id, amount_paise::text, status, released_paise::text
         FROM gateway_reserve_blocks WHERE mandate_id = $1`,
      [mandateId],
    );
    return row ?? null;
  }

  /** The first block of a mandate wins; a concurrent second one keeps it. */
  async recordReserveBlock(row: Omit<ReserveBlockRow, 'released_paise'>): Promise<void> {
    await this.tx.manager.query(
      `INSERT INTO gateway_reserve_blocks (mandate_id, customer_id, block_id, amount_paise, status)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (mandate_id) DO NOTHING`,
      [row.mandate_id, row.customer_id, row.block_id, row.amount_paise, row.status],
    );
  }

  /**
   * The block's state as the gateway reported it (a webhook or a read), only ever forward along
   * the block's documented order (gateway-states.ts), in the UPDATE's own condition: a late
   * `active` never revives a released or expired block. `releasedPaise` is recorded with a final
   * state only. Returns the block's status after the call and whether this call moved it; null
   * when no mandate has that block.
   */
  async setReserveBlockStatus(
    blockId: string,
    status: ReserveBlockStatus,
    releasedPaise: number | null,
  ): Promise<AdvanceResult<ReserveBlockStatus>> {
    // An UPDATE answers [rows, affected count].
    const [moved] = await this.tx.manager.query<[{ status: ReserveBlockStatus }[], number]>(
      `UPDATE gateway_reserve_blocks
          SET status = $2, updated_at = now(),
              released_paise = CASE WHEN $2 IN ('released', 'expired') THEN $3::bigint END
        WHERE block_id = $1 AND ${BLOCK_ADVANCES}
        RETURNING status`,
      [blockId, status, releasedPaise],
    );
    if (moved.length) {
      return { moved: true, status };
    }
    const [row] = await this.tx.manager.query<{ status: ReserveBlockStatus }[]>(
      `SELECT status FROM gateway_reserve_blocks WHERE block_id = $1`,
      [blockId],
    );
    return row ? { moved: false, status: row.status } : null;
  }

  /**
   * Live blocks whose mandate has ended (revoked, expired, or past valid_until at `now`): what the
   * release sweep gives back. Bounded, oldest first.
   */
  async blocksToRelease(now: Date, limit: number): Promise<ReserveBlockRow[]> {
    return queryFragment<ReserveBlockRow[]>(
      this.tx.manager,
      sql`SELECT b.mandate_id, b.customer_id, b.block_id, b.amount_paise::text, b.status, b.released_paise::text
         FROM gateway_reserve_blocks b
        WHERE b.status IN ('created', 'active')
          AND ${mandateParts.endedAt(col('b.mandate_id'), param(now), sql`'active', 'pending_authorisation'`)}
        ORDER BY b.created_at LIMIT ${limit}`,
    );
  }

  /**
   * Records an inbound event once: true when this call inserted it, false when the id is known
   * (a concurrent copy waits here for the first one's transaction and then sees it).
   */
  async claimEvent(e: {
    id: string;
    type: string;
    payload: unknown;
    orderId: string | null;
    paymentId: string | null;
    refundId: string | null;
  }): Promise<boolean> {
    const rows = await this.tx.manager.query<{ id: string }[]>(
      `INSERT INTO gateway_events (id, type, payload, order_id, payment_id, refund_id, outcome)
       VALUES ($1, $2, $3, $4, $5, $6, 'no_change') ON CONFLICT (id) DO NOTHING RETURNING id`,
      [e.id, e.type, JSON.stringify(e.payload), e.orderId, e.paymentId, e.refundId],
    );
    return rows.length === 1;
  }

  /** What applying an event did; `reason` says why an `unmatched` one is not ours (else null). */
  async settleEvent(
    id: string,
    outcome: GatewayEventOutcome,
    subjectId: string | null,
    reason: string | null = null,
  ) {
    await this.tx.manager.query(
      `UPDATE gateway_events SET outcome = $2, subject_id = $3, reason = $4 WHERE id = $1`,
      [id, outcome, subjectId, reason],
    );
  }

  /**
   * Orders of unmatched events that no row of gateway_orders names and that were never found
   * foreign (reason is null: the gateway was not asked yet, or did not answer): what the
   * matcher asks the gateway about (gateway-order-matcher.ts). Oldest first, at most `limit`.
   */
  async unmatchedOrdersToLookUp(limit: number): Promise<string[]> {
    const rows = await this.tx.manager.query<{ order_id: string }[]>(
      `SELECT e.order_id FROM gateway_events e
        WHERE e.outcome = 'unmatched' AND e.reconciled_at IS NULL AND e.reason IS NULL
          AND e.order_id IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM gateway_orders o WHERE o.id = e.order_id)
        GROUP BY e.order_id ORDER BY min(e.received_at) LIMIT $1`,
      [limit],
    );
    return rows.map((r) => r.order_id);
  }

  /** Why the unmatched events of an order are not ours, once the gateway said so. */
  async markOrderForeign(orderId: string, reason: string): Promise<void> {
    await this.tx.manager.query(
      `UPDATE gateway_events SET reason = $2
        WHERE order_id = $1 AND outcome = 'unmatched' AND reconciled_at IS NULL AND reason IS NULL`,
      [orderId, reason],
    );
  }

  /** True when a mandate has this id (the subject of a registration order). */
  async mandateExists(mandateId: string): Promise<boolean> {
    const [row] = await queryFragment<{ found: boolean }[]>(
      this.tx.manager,
      sql`SELECT ${mandateParts.statusOf(param(mandateId))} IS NOT NULL AS found`,
    );
    return row?.found === true;
  }

  /**
   * Records a signed event that did not parse, once, as `unprocessable` with why (payload null
   * when the body is not storable JSON): true when this call inserted it, false when the id is
   * known (a retry, answered duplicate as any repeat).
   */
  async claimUnprocessableEvent(e: {
    id: string;
    type: string;
    payload: unknown;
    reason: string;
  }): Promise<boolean> {
    const rows = await this.tx.manager.query<{ id: string }[]>(
      `INSERT INTO gateway_events (id, type, payload, outcome, reason)
       VALUES ($1, $2, $3, 'unprocessable', $4) ON CONFLICT (id) DO NOTHING RETURNING id`,
      [e.id, e.type, e.payload === null ? null : JSON.stringify(e.payload), e.reason],
    );
    return rows.length === 1;
  }

  /** Events for review, oldest first, at most `limit`, and how many there are per outcome. */
  async eventsForReview(
    limit: number,
  ): Promise<{ rows: ReviewEventRow[]; counts: Record<ReviewOutcome, number> }> {
    // One after the other: inside a transaction they would share one connection.
    const rows = await this.tx.manager.query<ReviewEventRow[]>(
      `SELECT id, type, outcome, order_id, payment_id, reason, received_at FROM gateway_events
        WHERE ${EVENTS_FOR_REVIEW} ORDER BY received_at, id LIMIT $1`,
      [limit],
    );
    const counts = await this.tx.manager.query<{ outcome: ReviewOutcome; n: number }[]>(
      `SELECT outcome, count(*)::int AS n FROM gateway_events
        WHERE ${EVENTS_FOR_REVIEW} GROUP BY outcome`,
    );
    const byOutcome: Record<ReviewOutcome, number> = { unprocessable: 0, unmatched: 0 };
    for (const c of counts) {
      byOutcome[c.outcome] = c.n;
    }
    return { rows, counts: byOutcome };
  }
}
