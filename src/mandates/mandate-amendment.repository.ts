import { Injectable } from '@nestjs/common';

import { Cursor, newestFirst } from '../common/pagination';
import { col, param, sql } from '../database/fragment';
import { personalRows } from '../database/personal-rows';
import { queryFragment } from '../database/sql';
import { Tx } from '../database/tx';
import { gatewayParts } from '../rails/gateway/gateway.repository';
import { mandateParts } from './mandate.repository';
import { MandateAmendment } from './mandate-amendment.entity';

/**
 * The owner of mandate_amendments (docs/architecture.md "Table owners"). Lock order: an amendment
 * row is locked only after its mandate (MandateAmendmentsService), before any chain row.
 */
@Injectable()
export class MandateAmendmentRepository {
  constructor(private readonly tx: Tx) {}

  /**
   * Inserts a pending amendment unless the mandate already has one (the partial unique index
   * mandate_amendments_one_pending): true when inserted. One statement, so two requests racing
   * cannot both win.
   */
  async insertIfNonePending(a: MandateAmendment): Promise<boolean> {
    const rows = await this.tx.manager.query<{ id: string }[]>(
      `INSERT INTO mandate_amendments (id, mandate_id, workspace_id, buyer_agent_id, status,
         old_terms, new_terms, changed, reason, chain_id, created_at, expires_at)
       VALUES ($1, $2, $3, $4, 'pending', $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (mandate_id) WHERE status = 'pending' DO NOTHING RETURNING id`,
      [
        a.id,
        a.mandateId,
        a.workspaceId,
        a.buyerAgentId,
        JSON.stringify(a.oldTerms),
        JSON.stringify(a.newTerms),
        a.changed,
        a.reason,
        a.chainId,
        a.createdAt,
        a.expiresAt,
      ],
    );
    return rows.length === 1;
  }

  findPending(mandateId: string): Promise<MandateAmendment | null> {
    return this.tx.manager.findOneBy(MandateAmendment, { mandateId, status: 'pending' });
  }

  findOfMandate(mandateId: string, id: string): Promise<MandateAmendment | null> {
    return this.tx.manager.findOneBy(MandateAmendment, { id, mandateId });
  }

  /** FOR NO KEY UPDATE, after the mandate's lock. */
  lock(mandateId: string, id: string): Promise<MandateAmendment | null> {
    return this.tx.manager.findOne(MandateAmendment, {
      where: { id, mandateId },
      lock: { mode: 'for_no_key_update' },
    });
  }

  async update(
    id: string,
    patch: Partial<Pick<MandateAmendment, 'status' | 'decidedBy' | 'decidedAt' | 'decisionNote'>>,
  ): Promise<void> {
    await this.tx.manager.update(MandateAmendment, { id }, patch);
  }

  /** Newest first, limit + 1 rows. */
  page(mandateId: string, limit: number, cursor: Cursor | null): Promise<MandateAmendment[]> {
    const qb = this.tx.manager
      .createQueryBuilder(MandateAmendment, 'a')
      .where('a.mandate_id = :mandateId', { mandateId });
    return newestFirst(qb, 'a', limit, cursor).getMany();
  }

  /**
   * Pending amendments to end: unanswered past expires_at, or whose mandate is no longer live
   * (revoked, expired, or past valid_until). [{mandate_id, id}], oldest first.
   */
  async dueToEnd(now: Date, limit: number): Promise<{ mandateId: string; id: string }[]> {
    const at = param(now);
    const rows = await queryFragment<{ mandate_id: string; id: string }[]>(
      this.tx.manager,
      sql`SELECT a.mandate_id, a.id FROM mandate_amendments a
        WHERE a.status = 'pending'
          AND (a.expires_at <= ${at} OR ${mandateParts.endedAt(col('a.mandate_id'), at, sql`'active'`)})
        ORDER BY a.expires_at LIMIT ${limit}`,
    );
    return rows.map((r) => ({ mandateId: r.mandate_id, id: r.id }));
  }

  /** Whether the mandate pays on an AutoPay token registered at the gateway (its cap and end fixed there). */
  async hasGatewayToken(mandateId: string): Promise<boolean> {
    const [row] = await queryFragment<{ has: boolean }[]>(
      this.tx.manager,
      sql`SELECT ${gatewayParts.hasMandateToken(param(mandateId))} AS has`,
    );
    return row.has;
  }
}

/** Erasure's reach into mandate_amendments: rows that can be a person's (docs/personal-data.md "The personal-data map"). */
export const mandateAmendmentsPersonalRows = personalRows(
  'mandate_amendments',
  't.workspace_id = s.ws',
);
