import { Injectable } from '@nestjs/common';

import { decodeCursor, Page, toPage } from '../common/pagination';
import { SqlFragment } from '../database/fragment';
import type { SettlementFilter } from './dto/list-settlements.query';
import type { SettlementLineResponse } from './dto/settlement-line.response';
import { SettlementRepository, SettlementSummary } from './settlement.repository';
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
 * The SQL is SettlementRepository's (docs/architecture.md "Table owners").
 */
@Injectable()
export class SettlementsService {
  constructor(private readonly repo: SettlementRepository) {}

  async listForSeller(
    sellerAgentId: string,
    q: { mismatch?: SettlementFilter; limit?: number; startingAfter?: string },
  ): Promise<Page<SettlementLineResponse>> {
    const limit = q.limit ?? 20;
    const rows = await this.repo.pageForSeller(
      sellerAgentId,
      q.mismatch,
      limit,
      decodeCursor(q.startingAfter),
    );
    return toPage(rows, limit, toSettlementLineResponse);
  }

  /** Operators: every mismatch, newest first (unknown lines included). */
  async mismatches(limit: number): Promise<SettlementLine[]> {
    return this.repo.mismatches(limit);
  }

  /** Operators: the totals of the lines that agree, per settlement, newest first. */
  async settlements(limit: number): Promise<SettlementSummary[]> {
    return this.repo.summaries(limit);
  }

  /** True when this gateway settlement is recorded. */
  async settlementKnown(id: string): Promise<boolean> {
    return this.repo.settlementKnown(id);
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
    await this.repo.insertSettlement(s);
  }

  /**
   * Inserts or updates one report line (unique per kind and gateway entity); values in column
   * order. Forward only (src/rails/gateway/gateway-states.ts "settlement line"): a line matched to our
   * transfer is never replaced by an unmatched (`unknown`) one from an older, overlapping run.
   */
  async upsertLine(values: unknown[]): Promise<void> {
    await this.repo.upsertLine(values);
  }

  /**
   * `missing` rows for succeeded gateway transfers made at or before `before` that no line carries
   * (`transfersSql`: RailTransferRepository's parameterised by `$1`); returns how many.
   */
  async insertMissing(now: Date, transfers: SqlFragment): Promise<number> {
    return this.repo.insertMissing(now, transfers);
  }
}
