import { Injectable } from '@nestjs/common';

import { decodeCursor, newestFirst, Page, toPage } from '../common/pagination';
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
