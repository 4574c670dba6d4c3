import { Inject, Injectable, Logger } from '@nestjs/common';

import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { param } from '../database/fragment';
import { Tx } from '../database/tx';
import { PaymentAttempt } from '../payments/payment-attempt';
import { PaymentIntentRepository } from '../payments/payment-intent.repository';
import { PaymentsService } from '../payments/payments.service';
import { GatewayTransfer, RailTransferRepository } from '../payments/rail-transfer.repository';
import { GatewayRepository } from '../rails/gateway/gateway.repository';
import type { GatewayClient } from '../rails/gateway/gateway-client';
import type { GatewayReconLine } from '../rails/gateway/gateway-client.types';
import { GATEWAY_CLIENT } from '../rails/gateway/gateway-rail';
import { istDaysEnding } from './ist-days';
import type { SettlementMismatch } from './settlement-line.entity';
import { SettlementsService } from './settlements.service';

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

/**
 * Settlement reconciliation (docs/gateway.md "Settlements and reconciliation"). Reads the gateway's
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
 * A payment line whose order is the order of one of our intents still `processing` (its outcome
 * never reached us: webhooks lost, or an AutoPay debit whose status checks ran out, see
 * StatusCheckPacing) settles that intent first, through the pipeline (PaymentsService.applyDebit:
 * signed receipt, intent.settled), when the amounts agree; the line then matches it. The report is
 * the gateway's word that the payment was captured and paid out, so this ends the intent once.
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
    private readonly store: SettlementsService,
    private readonly intents: PaymentIntentRepository,
    private readonly gatewayOrders: GatewayRepository,
    private readonly payments: PaymentsService,
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
        await this.settleProcessingIntent(line);
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
    if (await this.store.settlementKnown(id)) {
      return;
    }
    const s = await (this.client as GatewayClient).getSettlement(id);
    await this.store.recordSettlement({
      id: s.id,
      amountPaise: s.amount,
      feesPaise: s.fees,
      taxPaise: s.tax,
      utr: s.utr,
      settledAt: new Date(s.created_at * 1000),
    });
  }

  /**
   * A captured payment of an intent still `processing` (no succeeded transfer of ours carries it):
   * settles the intent when the line's order is the intent's order (receipt = intent id) and the
   * amount is the intent's. Outside any transaction: applyDebit takes its own, under the locks.
   */
  private async settleProcessingIntent(line: GatewayReconLine): Promise<void> {
    if (line.type !== 'payment' || !line.order_receipt || !line.order_id) {
      return;
    }
    if (await this.transfers.succeededForGateway('payment', line.entity_id)) {
      return;
    }
    const intent = await this.intents.find(line.order_receipt);
    if (!intent || intent.status !== 'processing' || intent.amountPaise !== line.amount) {
      return;
    }
    const order = await this.gatewayOrders.orderOf('intent', intent.id);
    if (order?.id !== line.order_id) {
      return;
    }
    const outcome = await this.payments.applyDebit(
      {
        status: 'succeeded',
        reference: line.entity_id,
        ids: { orderId: line.order_id, paymentId: line.entity_id },
      },
      PaymentAttempt.ofIntent(intent.id),
    );
    if (outcome) {
      this.logger.log(
        { intent_id: intent.id, payment_id: line.entity_id, status: outcome.status },
        'processing intent ended by the settlement report',
      );
    }
  }

  /** Matches one report line and upserts its row; returns its mismatch (null: agrees). */
  private async recordLine(line: GatewayReconLine, now: Date): Promise<SettlementMismatch | null> {
    const ours = await this.ourTransfer(line);
    const mismatch: SettlementMismatch | null = !ours
      ? 'unknown'
      : Number(ours.amount_paise) !== line.amount
        ? 'amount'
        : null;
    await this.store.upsertLine([
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
    ]);
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
    return this.store.insertMissing(now, this.transfers.succeededGatewayTransfers(param(before)));
  }
}
