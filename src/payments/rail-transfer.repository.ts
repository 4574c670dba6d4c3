import { Injectable } from '@nestjs/common';

import { newId } from '../common/ids';
import { batchColumns, batchInsert } from '../database/batch';
import { col, sql, SqlFragment, SqlOperand, textOf } from '../database/fragment';
import { QueuedStatement, Tx } from '../database/tx';
import type { RailResult } from '../rails/payment-rail';
import { RailTransfer } from './entities/rail-transfer.entity';
import { intentParts } from './payment-intent.repository';

/** A debit's rail transfer as queued for the commit (Tx.writeBeforeCommit). */
export interface DebitTransferRow {
  id: string;
  intentId: string;
  amountPaise: number;
  status: 'succeeded' | 'failed';
  failureCode: string | null;
  reference: string | null;
  gatewayOrderId: string | null;
  gatewayPaymentId: string | null;
  createdAt: string;
}

/** A succeeded gateway transfer as the settlement reconciler matches it. */
export interface GatewayTransfer {
  intent_id: string;
  refund_id: string | null;
  amount_paise: string;
  seller_agent_id: string;
}

/**
 * The owner of rail_transfers (docs/architecture.md "Table owners"): the record of every debit
 * and credit the rail answered definitely, written by the pipeline (debits) and by refunds
 * (credits), read by the settlement reconciler.
 */
@Injectable()
export class RailTransferRepository {
  constructor(private readonly tx: Tx) {}

  /** Queues a debit's transfer for the commit's one statement (nothing reads it back). */
  async insertDebitAtCommit(row: DebitTransferRow): Promise<void> {
    await this.tx.writeBeforeCommit('rail_transfers.debit', row, insertDebitTransfers);
  }

  /** Records a refund's credit on the rail; unique per refund (rail_transfers_refund_id_key). */
  async insertCredit(
    credit: { intentId: string; refundId: string; amountPaise: number },
    result: Exclude<RailResult, { status: 'pending' }>,
    now: Date,
  ): Promise<void> {
    await this.tx.manager.insert(RailTransfer, {
      id: newId('trf'),
      intentId: credit.intentId,
      direction: 'credit',
      refundId: credit.refundId,
      amountPaise: credit.amountPaise,
      status: result.status,
      failureCode: result.status === 'failed' ? result.failureCode : null,
      reference: result.reference,
      gatewayOrderId: null,
      gatewayPaymentId: result.ids?.paymentId ?? null,
      gatewayRefundId: result.ids?.refundId ?? null,
      createdAt: now,
    });
  }

  /** Our succeeded debit of a gateway payment, or credit of a gateway refund, with its seller. */
  async succeededForGateway(
    kind: 'payment' | 'refund',
    gatewayId: string,
  ): Promise<GatewayTransfer | null> {
    const [row] = await this.tx.manager.query<GatewayTransfer[]>(gatewayTransferSql(kind), [
      gatewayId,
    ]);
    return row ?? null;
  }

  /**
   * A SELECT for another owner's statement (the settlement reconciler's INSERT … SELECT), as a
   * fragment: our succeeded gateway transfers made at or before `before`, as (id, kind,
   * gateway_entity_id, intent_id, refund_id, seller_agent_id, amount_paise).
   */
  succeededGatewayTransfers(before: SqlOperand): SqlFragment {
    return sql`SELECT rt.id, CASE rt.direction WHEN 'debit' THEN 'payment' ELSE 'refund' END AS kind,
                   CASE rt.direction WHEN 'debit' THEN rt.gateway_payment_id ELSE rt.gateway_refund_id END
                     AS gateway_entity_id,
                   rt.intent_id, rt.refund_id, ${intentParts.sellerOf(col('rt.intent_id'))} AS seller_agent_id,
                   rt.amount_paise
              FROM rail_transfers rt
             WHERE rt.status = 'succeeded' AND rt.created_at <= ${before}
               AND ((rt.direction = 'debit' AND rt.gateway_payment_id IS NOT NULL)
                 OR (rt.direction = 'credit' AND rt.gateway_refund_id IS NOT NULL))`;
  }
}

/**
 * `succeededForGateway`'s statement: by the gateway's payment id (a debit) or refund id (a credit),
 * each through its partial index (rail_transfers_gateway_payment_id_key,
 * rail_transfers_gateway_refund_id_idx), so a settlement report's lines never scan the table.
 */
export function gatewayTransferSql(kind: 'payment' | 'refund'): string {
  const [refund, gatewayId, direction] =
    kind === 'payment'
      ? ['NULL', 'rt.gateway_payment_id', 'debit']
      : ['rt.refund_id', 'rt.gateway_refund_id', 'credit'];
  return `SELECT rt.intent_id, ${refund} AS refund_id, rt.amount_paise::text,
                 ${textOf(intentParts.sellerOf(col('rt.intent_id')))} AS seller_agent_id
            FROM rail_transfers rt
           WHERE ${gatewayId} = $1 AND rt.direction = '${direction}' AND rt.status = 'succeeded'`;
}

/** A transaction's debit rail transfers (in practice one) as one INSERT. */
const DEBIT_TRANSFER_COLUMNS = batchColumns<DebitTransferRow>({
  id: ['text', (r) => r.id],
  intent_id: ['text', (r) => r.intentId],
  direction: ['text', () => 'debit'],
  amount_paise: ['bigint', (r) => r.amountPaise],
  status: ['text', (r) => r.status],
  failure_code: ['text', (r) => r.failureCode],
  reference: ['text', (r) => r.reference],
  gateway_order_id: ['text', (r) => r.gatewayOrderId],
  gateway_payment_id: ['text', (r) => r.gatewayPaymentId],
  created_at: ['timestamptz', (r) => r.createdAt],
});

function insertDebitTransfers(rows: DebitTransferRow[]): QueuedStatement {
  return batchInsert('rail_transfers', DEBIT_TRANSFER_COLUMNS, rows);
}
