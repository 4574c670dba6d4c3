import { Injectable } from '@nestjs/common';
import { EntityManager, In } from 'typeorm';

import { paiseFromSql } from '../common/money';
import { Cursor, newestFirst } from '../common/pagination';
import { col, textOf } from '../database/fragment';
import { personalRows } from '../database/personal-rows';
import { Tx } from '../database/tx';
import { intentParts } from '../payments/payment-intent.repository';
import { Refund } from './refund.entity';
import { REFUND_COMMITTED } from './refund.state';

/**
 * The owner of refunds (docs/architecture.md "Table owners"); the intent a refund locks and
 * increments and its credit on the rail are the payments module's (PaymentIntentRepository,
 * RailTransferRepository). Lock order is intent → refund → approval everywhere.
 */
/** Personal data (src/personal-data): the refunds of these payments, oldest first. */
export function refundsOfIntents(m: EntityManager, intentIds: string[]): Promise<Refund[]> {
  return intentIds.length === 0
    ? Promise.resolve([])
    : m.find(Refund, { where: { intentId: In(intentIds) }, order: { createdAt: 'ASC' } });
}

@Injectable()
export class RefundRepository {
  constructor(private readonly tx: Tx) {}

  /** Paise of this intent already refunded or waiting for approval. */
  async committedPaise(intentId: string): Promise<number> {
    const [row] = await this.tx.manager.query<{ total: string }[]>(
      `SELECT COALESCE(SUM(amount_paise), 0)::text AS total FROM refunds WHERE intent_id = $1 AND status = ANY($2)`,
      [intentId, REFUND_COMMITTED],
    );
    return paiseFromSql(row.total);
  }

  /** committedPaise of several intents in one query; an intent without refunds is left out. */
  async committedPaiseByIntent(intentIds: string[]): Promise<Map<string, number>> {
    if (intentIds.length === 0) {
      return new Map();
    }
    const rows = await this.tx.manager.query<{ intent_id: string; total: string }[]>(
      `SELECT intent_id, SUM(amount_paise)::text AS total FROM refunds
        WHERE intent_id = ANY($1) AND status = ANY($2) GROUP BY intent_id`,
      [intentIds, REFUND_COMMITTED],
    );
    return new Map(rows.map((r) => [r.intent_id, paiseFromSql(r.total)]));
  }

  async insert(refund: Refund): Promise<void> {
    await this.tx.manager.insert(Refund, refund);
  }

  find(id: string): Promise<Refund | null> {
    return this.tx.manager.findOneBy(Refund, { id });
  }

  lock(id: string): Promise<Refund | null> {
    return this.tx.manager.findOne(Refund, { where: { id }, lock: { mode: 'for_no_key_update' } });
  }

  async update(id: string, changes: Partial<Refund>): Promise<void> {
    await this.tx.manager.update(Refund, { id }, changes);
  }

  /** Refunds by id; unknown ids are left out. */
  findByIds(ids: string[]): Promise<Refund[]> {
    return ids.length === 0 ? Promise.resolve([]) : this.tx.manager.findBy(Refund, { id: In(ids) });
  }

  /** The newest refunds of payments that a workspace's buyer agents made. */
  recentToBuyerWorkspace(workspaceId: string, limit: number): Promise<Refund[]> {
    return this.tx.manager
      .createQueryBuilder(Refund, 'r')
      .where(`${textOf(intentParts.buyerWorkspaceOf(col('r.intent_id')))} = :workspaceId`, {
        workspaceId,
      })
      .orderBy('r.created_at', 'DESC')
      .addOrderBy('r.id', 'DESC')
      .limit(limit)
      .getMany();
  }

  /** Every refund of one intent, oldest first (an order's refunds). */
  allForIntent(intentId: string): Promise<Refund[]> {
    return this.tx.manager.find(Refund, {
      where: { intentId },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  /** Refunds of one intent, newest first, limit + 1 rows (for toPage). */
  listForIntent(intentId: string, limit: number, after: Cursor | null): Promise<Refund[]> {
    const qb = this.tx.manager
      .createQueryBuilder(Refund, 'r')
      .where('r.intent_id = :intentId', { intentId });
    return newestFirst(qb, 'r', limit, after).getMany();
  }

  /**
   * The reconciler's claim: processing refunds untouched since `olderThan`, taken with SKIP
   * LOCKED and touched (updated_at = now), so no other instance asks about them for an interval.
   */
  async claimProcessing(olderThan: Date, limit: number, now: Date, id?: string): Promise<string[]> {
    const [rows] = await this.tx.manager.query<[{ id: string }[], number]>(
      `UPDATE refunds SET updated_at = $4
        WHERE id IN (SELECT id FROM refunds
                      WHERE status = 'processing' AND updated_at <= $1 AND ($3::text IS NULL OR id = $3)
                      ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING id`,
      [olderThan, limit, id ?? null, now],
    );
    return rows.map((r) => r.id);
  }

  /** The rail's refund id, known before its outcome (the gateway's refund is still pending). */
  async setProcessingReference(id: string, reference: string): Promise<void> {
    await this.tx.manager.update(
      Refund,
      { id, status: 'processing' },
      { railReference: reference },
    );
  }

  findByRailReference(reference: string): Promise<Refund | null> {
    return this.tx.manager.findOneBy(Refund, { railReference: reference });
  }
}

/** Erasure's reach into refunds: rows that can be a person's (docs/personal-data.md "The personal-data map"). */
export const refundsPersonalRows = personalRows('refunds', 't.intent_id = ANY(s.intents)');
