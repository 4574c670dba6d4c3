import { Inject, Injectable, Logger } from '@nestjs/common';

import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { Tx } from '../database/tx';
import type { GatewayClient } from '../gateway/gateway-client';
import type { GatewayReconLine } from '../gateway/gateway-client.types';
import { GATEWAY_CLIENT } from '../gateway/gateway-rail';
import { GatewayTransfer, RailTransferRepository } from '../payments/rail-transfer.repository';
import { istDaysEnding } from './ist-days';
import type { SettlementMismatch } from './settlement-line.entity';

export interface ReconcileSummary {
  /** Report lines read (every day of the lookback). */
  lines: number;
  /** Lines matched to an intent with the same amount. */
  matched: number;
  amount: number;
  unknown: number;
  /** Rows newly marked missing by this run. */
  missing: number;
}

/** Our side of a gateway payment or refund: the rail transfer that recorded it. */
/**
 * Settlement reconciliation (README "Settlements and reconciliation"). Reads the gateway's
 * settlement report (`/v1/settlements/recon/combined`) for the last SETTLEMENT_LOOKBACK_DAYS IST
 * days and upserts one `settlement_lines` row per gateway payment or refund:
 *
 * - a payment line is matched by the gateway payment id the pipeline recorded on the intent's
 *   succeeded debit (`rail_transfers.gateway_payment_id`), a refund line by the refund's credit
 *   (`gateway_refund_id`); the report's fee, tax, UTR and settlement are recorded with it;
 * - `amount`: matched, but the report's amount is not the amount we moved;
 * - `unknown`: the report has a payment or refund we never had;
 * - `missing`: a succeeded gateway debit or credit of ours older than SETTLEMENT_MISSING_AFTER_MS
 *   (service clock) that no report line carries. A later line for it replaces the row.
 *
 * Every write is an upsert on (kind, gateway_entity_id), so runs may overlap or repeat (the Bull
 * job, the manual trigger) and end in the same rows. Gateway calls are made outside any
 * transaction; each line is written in its own short one.
 */
@Injectable()
export class SettlementReconciler {
  private readonly logger = new Logger(SettlementReconciler.name);

  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly transfers: RailTransferRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(GATEWAY_CLIENT) private readonly client: GatewayClient | null,
  ) {}

  /** One run; on the sandbox rail (no gateway) there is nothing to reconcile. */
  async run(): Promise<ReconcileSummary> {
    const summary: ReconcileSummary = { lines: 0, matched: 0, amount: 0, unknown: 0, missing: 0 };
    if (!this.client) {
      return summary;
    }
    const now = this.clock.now();
    const settlementIds = new Set<string>();
    for (const day of istDaysEnding(now, this.config.settlements.lookbackDays)) {
      const lines = await this.client.getSettlementRecon(day);
      for (const line of lines) {
        summary.lines++;
        settlementIds.add(line.settlement_id);
        const mismatch = await this.tx.run(() => this.recordLine(line, now));
        if (mismatch === null) {
          summary.matched++;
        } else {
          summary[mismatch as 'amount' | 'unknown']++;
        }
      }
    }
    for (const id of settlementIds) {
      await this.recordSettlement(id);
    }
    summary.missing = await this.tx.run(() => this.markMissing(now));
    this.logger.log(summary, 'settlement report reconciled');
    return summary;
  }

  private async recordSettlement(id: string): Promise<void> {
    const known = await this.tx.manager.query<unknown[]>(
      'SELECT 1 FROM gateway_settlements WHERE id = $1',
      [id],
    );
    if (known.length) {
      return;
    }
    const s = await (this.client as GatewayClient).getSettlement(id);
    await this.tx.manager.query(
      `INSERT INTO gateway_settlements (id, amount_paise, fees_paise, tax_paise, utr, settled_at)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
      [s.id, s.amount, s.fees, s.tax, s.utr, new Date(s.created_at * 1000)],
    );
  }

  /** Matches one report line and upserts its row; returns its mismatch (null: agrees). */
  private async recordLine(line: GatewayReconLine, now: Date): Promise<SettlementMismatch | null> {
    const ours = await this.ourTransfer(line);
    const mismatch: SettlementMismatch | null = !ours
      ? 'unknown'
      : Number(ours.amount_paise) !== line.amount
        ? 'amount'
        : null;
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
         updated_at = EXCLUDED.updated_at`,
      [
        newId('stl'),
        line.type,
        line.entity_id,
        line.settlement_id,
        line.settlement_utr,
        line.amount,
        line.fee,
        line.tax,
        line.debit,
        line.credit,
        line.order_id,
        line.order_receipt,
        new Date(line.settled_at * 1000),
        ours?.intent_id ?? null,
        ours?.refund_id ?? null,
        ours?.seller_agent_id ?? null,
        ours ? Number(ours.amount_paise) : null,
        mismatch,
        now,
      ],
    );
    return mismatch;
  }

  private ourTransfer(line: GatewayReconLine): Promise<GatewayTransfer | null> {
    return this.transfers.succeededForGateway(line.type, line.entity_id);
  }

  /**
   * Our succeeded gateway debits and credits older than the grace period that no report line
   * carries become `missing` rows; an existing row (reported, or already missing) is kept.
   */
  private async markMissing(now: Date): Promise<number> {
    const before = new Date(now.getTime() - this.config.settlements.missingAfterMs);
    const rows = await this.tx.manager.query<unknown[]>(
      `INSERT INTO settlement_lines (id, kind, gateway_entity_id, intent_id, refund_id,
         seller_agent_id, expected_amount_paise, mismatch, created_at, updated_at)
       SELECT 'stl_' || md5(rt.id), rt.kind, rt.gateway_entity_id, rt.intent_id, rt.refund_id,
              rt.seller_agent_id, rt.amount_paise, 'missing', $2, $2
         FROM (${this.transfers.succeededGatewayTransfersSql()}) AS rt
        WHERE NOT EXISTS (SELECT 1 FROM settlement_lines l WHERE l.gateway_entity_id = rt.gateway_entity_id)
       ON CONFLICT (kind, gateway_entity_id) DO NOTHING
       RETURNING id`,
      [before, now],
    );
    return rows.length;
  }
}
