import { Injectable } from '@nestjs/common';

import { decodeCursor, newestFirst, Page, toPage } from '../common/pagination';
import { param, sql, SqlFragment } from '../database/fragment';
import { queryFragment } from '../database/sql';
import { Tx } from '../database/tx';
import type { SettlementFilter } from './dto/list-settlements.query';
import type { SettlementLineResponse } from './dto/settlement-line.response';
import { SettlementLine } from './settlement-line.entity';

export function toSettlementLineResponse(l: SettlementLine): SettlementLineResponse {
  return {
    id: l.id,
    object: 'settlement_line',
    kind: l.kind,
    gateway_entity_id: l.gatewayEntityId,
    intent_id: l.intentId,
    refund_id: l.refundId,
    amount_paise: l.amountPaise,
    expected_amount_paise: l.expectedAmountPaise,
    fee_paise: l.feePaise,
    tax_paise: l.taxPaise,
    credit_paise: l.creditPaise,
    debit_paise: l.debitPaise,
    settlement_id: l.gatewaySettlementId,
    utr: l.utr,
    settled_at: l.settledAt ? l.settledAt.toISOString() : null,
    mismatch: l.mismatch,
    created_at: l.createdAt.toISOString(),
    updated_at: l.updatedAt.toISOString(),
  };
}

/**
 * Reads of the settlement lines. A seller sees the lines of its own intents (seller_agent_id);
 * `unknown` lines belong to no intent and are shown to operators only (/app/ops/settlements).
 */
@Injectable()
export class SettlementsService {
  constructor(private readonly tx: Tx) {}

  async listForSeller(
    sellerAgentId: string,
    q: { mismatch?: SettlementFilter; limit?: number; startingAfter?: string },
  ): Promise<Page<SettlementLineResponse>> {
    const limit = q.limit ?? 20;
    const qb = this.tx.manager
      .createQueryBuilder(SettlementLine, 'l')
      .where('l.seller_agent_id = :seller', { seller: sellerAgentId });
    this.filter(qb, q.mismatch);
    const rows = await newestFirst(qb, 'l', limit, decodeCursor(q.startingAfter)).getMany();
    return toPage(rows, limit, toSettlementLineResponse);
  }

  /** Operators: every mismatch, newest first (unknown lines included). */
  async mismatches(limit: number): Promise<SettlementLine[]> {
    return this.tx.manager
      .createQueryBuilder(SettlementLine, 'l')
      .where('l.mismatch IS NOT NULL')
      .orderBy('l.created_at', 'DESC')
      .addOrderBy('l.id', 'DESC')
      .limit(limit)
      .getMany();
  }

  /** Operators: the totals of the lines that agree, per settlement, newest first. */
  async settlements(limit: number): Promise<SettlementSummary[]> {
    const rows = await this.tx.manager.query<
      {
        id: string;
        utr: string;
        amount_paise: string;
        fees_paise: string;
        tax_paise: string;
        settled_at: Date;
        lines: number;
        mismatched: number;
      }[]
    >(
      `SELECT s.id, s.utr, s.amount_paise::text, s.fees_paise::text, s.tax_paise::text, s.settled_at,
              count(l.id)::int AS lines, count(l.mismatch)::int AS mismatched
         FROM gateway_settlements s LEFT JOIN settlement_lines l ON l.gateway_settlement_id = s.id
        GROUP BY s.id ORDER BY s.settled_at DESC, s.id DESC LIMIT $1`,
      [limit],
    );
    return rows.map((r) => ({
      id: r.id,
      utr: r.utr,
      amountPaise: Number(r.amount_paise),
      feesPaise: Number(r.fees_paise),
      taxPaise: Number(r.tax_paise),
      settledAt: r.settled_at,
      lines: r.lines,
      mismatched: r.mismatched,
    }));
  }

  /** True when this gateway settlement is recorded. */
  async settlementKnown(id: string): Promise<boolean> {
    const rows = await this.tx.manager.query<unknown[]>(
      'SELECT 1 FROM gateway_settlements WHERE id = $1',
      [id],
    );
    return rows.length > 0;
  }

  /** Records a gateway settlement once (a repeat keeps the first row). */
  async recordSettlement(s: {
    id: string;
    amountPaise: number;
    feesPaise: number;
    taxPaise: number;
    utr: string;
    settledAt: Date;
  }): Promise<void> {
    await this.tx.manager.query(
      `INSERT INTO gateway_settlements (id, amount_paise, fees_paise, tax_paise, utr, settled_at)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
      [s.id, s.amountPaise, s.feesPaise, s.taxPaise, s.utr, s.settledAt],
    );
  }

  /**
   * Inserts or updates one report line (unique per kind and gateway entity); values in column
   * order. Forward only (src/rails/gateway/gateway-states.ts "settlement line"): a line matched to our
   * transfer is never replaced by an unmatched (`unknown`) one from an older, overlapping run.
   */
  async upsertLine(values: unknown[]): Promise<void> {
    await this.tx.manager.query(
      `INSERT INTO settlement_lines (id, kind, gateway_entity_id, gateway_settlement_id, utr,
         amount_paise, fee_paise, tax_paise, debit_paise, credit_paise, gateway_order_id,
         order_receipt, settled_at, intent_id, refund_id, seller_agent_id, expected_amount_paise,
         mismatch, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $19)
       ON CONFLICT (kind, gateway_entity_id) DO UPDATE SET
         gateway_settlement_id = EXCLUDED.gateway_settlement_id, utr = EXCLUDED.utr,
         amount_paise = EXCLUDED.amount_paise, fee_paise = EXCLUDED.fee_paise,
         tax_paise = EXCLUDED.tax_paise, debit_paise = EXCLUDED.debit_paise,
         credit_paise = EXCLUDED.credit_paise, gateway_order_id = EXCLUDED.gateway_order_id,
         order_receipt = EXCLUDED.order_receipt, settled_at = EXCLUDED.settled_at,
         intent_id = EXCLUDED.intent_id, refund_id = EXCLUDED.refund_id,
         seller_agent_id = EXCLUDED.seller_agent_id,
         expected_amount_paise = EXCLUDED.expected_amount_paise, mismatch = EXCLUDED.mismatch,
         updated_at = EXCLUDED.updated_at
       WHERE settlement_lines.intent_id IS NULL OR EXCLUDED.intent_id IS NOT NULL`,
      values,
    );
  }

  /**
   * `missing` rows for succeeded gateway transfers made at or before `before` that no line carries
   * (`transfersSql`: RailTransferRepository's parameterised by `$1`); returns how many.
   */
  async insertMissing(now: Date, transfers: SqlFragment): Promise<number> {
    const at = param(now);
    const rows = await queryFragment<unknown[]>(
      this.tx.manager,
      sql`INSERT INTO settlement_lines (id, kind, gateway_entity_id, intent_id, refund_id,
         seller_agent_id, expected_amount_paise, mismatch, created_at, updated_at)
       SELECT 'stl_' || md5(rt.id), rt.kind, rt.gateway_entity_id, rt.intent_id, rt.refund_id,
              rt.seller_agent_id, rt.amount_paise, 'missing', ${at}, ${at}
         FROM (${transfers}) AS rt
        WHERE NOT EXISTS (SELECT 1 FROM settlement_lines l WHERE l.gateway_entity_id = rt.gateway_entity_id)
       ON CONFLICT (kind, gateway_entity_id) DO NOTHING
       RETURNING id`,
    );
    return rows.length;
  }

  private filter(
    qb: ReturnType<Tx['manager']['createQueryBuilder']>,
    f: SettlementFilter | undefined,
  ): void {
    if (f === 'mismatched') {
      qb.andWhere('l.mismatch IS NOT NULL');
    } else if (f === 'amount' || f === 'missing') {
      qb.andWhere('l.mismatch = :m', { m: f });
    }
  }
}

export interface SettlementSummary {
  id: string;
  utr: string;
  amountPaise: number;
  feesPaise: number;
  taxPaise: number;
  settledAt: Date;
  lines: number;
  mismatched: number;
}
