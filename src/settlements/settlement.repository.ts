import { Injectable } from '@nestjs/common';

import { Cursor, newestFirst } from '../common/pagination';
import { param, sql, SqlFragment } from '../database/fragment';
import { queryFragment } from '../database/sql';
import { Tx } from '../database/tx';
import type { SettlementFilter } from './dto/list-settlements.query';
import { SettlementLine } from './settlement-line.entity';

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

/** The owner of settlement_lines and gateway_settlements (docs/architecture.md "Table owners"). */
@Injectable()
export class SettlementRepository {
  constructor(private readonly tx: Tx) {}

  /** A seller's lines (optionally filtered by mismatch), newest first, limit + 1 rows (for toPage). */
  pageForSeller(
    sellerAgentId: string,
    mismatch: SettlementFilter | undefined,
    limit: number,
    cursor: Cursor | null,
  ): Promise<SettlementLine[]> {
    const qb = this.tx.manager
      .createQueryBuilder(SettlementLine, 'l')
      .where('l.seller_agent_id = :seller', { seller: sellerAgentId });
    this.filter(qb, mismatch);
    return newestFirst(qb, 'l', limit, cursor).getMany();
  }

  /** Every mismatched line, newest first (unknown lines included). */
  mismatches(limit: number): Promise<SettlementLine[]> {
    return this.tx.manager
      .createQueryBuilder(SettlementLine, 'l')
      .where('l.mismatch IS NOT NULL')
      .orderBy('l.created_at', 'DESC')
      .addOrderBy('l.id', 'DESC')
      .limit(limit)
      .getMany();
  }

  /** Each settlement with its line counts, newest first. */
  async summaries(limit: number): Promise<SettlementSummary[]> {
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

  /** Inserts a gateway settlement unless its id is recorded (a repeat keeps the first row). */
  async insertSettlement(s: {
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
   * Inserts or updates one line (unique per kind and gateway entity); values in column order. An
   * existing line matched to an intent is only replaced by a matched one.
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
   * A `missing` line for each row of `transfers` (a fragment: gateway transfers) that no line
   * carries; returns how many were inserted.
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
