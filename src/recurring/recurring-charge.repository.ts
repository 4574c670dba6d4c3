import { Injectable } from '@nestjs/common';

import { Cursor, newestFirst } from '../common/pagination';
import { col, param, sql } from '../database/fragment';
import { personalRows } from '../database/personal-rows';
import { queryFragment } from '../database/sql';
import { Tx } from '../database/tx';
import { mandateParts } from '../mandates/mandate.repository';
import { ChargeStatus, CYCLE_HOLDING, RecurringCharge } from './recurring-charge.entity';

/** The only SQL on recurring_charges. Always through Tx. */
@Injectable()
export class RecurringChargeRepository {
  constructor(private readonly tx: Tx) {}

  /**
   * Inserts the charge unless its mandate already has a live or settled charge in that billing
   * cycle (the partial unique index recurring_charges_cycle_live_key): true when inserted. One
   * statement, so two sellers racing for one cycle cannot both win and neither sees an error.
   */
  async insertIfCycleFree(c: RecurringCharge): Promise<boolean> {
    const rows = await this.tx.manager.query<{ id: string }[]>(
      `INSERT INTO recurring_charges (id, mandate_id, buyer_workspace_id, buyer_agent_id,
         seller_workspace_id, seller_agent_id, amount_paise, description, status, notice_at, debit_at,
         cycle_index, cycle_start, cycle_end, authorisation, approval_id, created_at, updated_at,
         reason, upi_mandate_ref, first_debit)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17,
         $18, $19, $20)
       ON CONFLICT (mandate_id, cycle_index)
         -- The index's own predicate (CYCLE_HOLDING), spelled as the migration does.
         WHERE status IN ('awaiting_authorisation', 'scheduled', 'processing', 'settled')
       DO NOTHING RETURNING id`,
      [
        c.id,
        c.mandateId,
        c.buyerWorkspaceId,
        c.buyerAgentId,
        c.sellerWorkspaceId,
        c.sellerAgentId,
        c.amountPaise,
        c.description,
        c.status,
        c.noticeAt,
        c.debitAt,
        c.cycleIndex,
        c.cycleStart,
        c.cycleEnd,
        c.authorisation,
        c.approvalId,
        c.createdAt,
        c.reason,
        c.upiMandateRef,
        c.firstDebit,
      ],
    );
    return rows.length === 1;
  }

  /** The charge holding this mandate's billing cycle, if any (for the conflict's message). */
  findCycleHolder(mandateId: string, cycleIndex: number): Promise<RecurringCharge | null> {
    return this.tx.manager
      .createQueryBuilder(RecurringCharge, 'c')
      .where('c.mandate_id = :mandateId AND c.cycle_index = :cycleIndex', { mandateId, cycleIndex })
      .andWhere('c.status IN (:...holding)', { holding: CYCLE_HOLDING })
      .getOne();
  }

  get(id: string): Promise<RecurringCharge | null> {
    return this.tx.manager.findOneBy(RecurringCharge, { id });
  }

  /**
   * FOR NO KEY UPDATE: the charge is the payment's source, first in the lock order
   * (docs/architecture.md "Lock order"). With skipLocked a row another transaction holds is
   * skipped (null).
   */
  lock(id: string, opts: { skipLocked?: boolean } = {}): Promise<RecurringCharge | null> {
    return this.tx.manager.findOne(RecurringCharge, {
      where: { id },
      lock: {
        mode: 'for_no_key_update',
        ...(opts.skipLocked ? { onLocked: 'skip_locked' as const } : {}),
      },
    });
  }

  async update(id: string, patch: Partial<RecurringCharge>): Promise<void> {
    await this.tx.manager.update(RecurringCharge, { id }, patch);
  }

  /**
   * Charges to look at now: scheduled ones whose debit time has come, first debits scheduled with
   * a registration the person has since decided, and live ones whose mandate has ended (revoked or past valid_until) or whose cycle is over. Oldest first, bounded.
   */
  async dueIds(now: Date, limit: number): Promise<string[]> {
    const at = param(now);
    const rows = await queryFragment<{ id: string }[]>(
      this.tx.manager,
      sql`SELECT c.id FROM recurring_charges c
        WHERE (c.status = 'scheduled' AND c.debit_at <= ${at})
           OR (c.status = 'awaiting_authorisation' AND c.authorisation = 'with_registration'
               AND ${mandateParts.statusOf(col('c.mandate_id'))} <> 'pending_authorisation')
           OR (c.status IN ('awaiting_authorisation', 'scheduled')
               AND (c.cycle_end <= ${at}
                    OR ${mandateParts.endedAt(col('c.mandate_id'), at, sql`'active', 'pending_authorisation'`)}))
        ORDER BY c.debit_at, c.id LIMIT ${limit}`,
    );
    return rows.map((r) => r.id);
  }

  /**
   * Ids of the live charges (awaiting_authorisation, scheduled) this workspace is the seller or the
   * buyer of, oldest debit first (no locks): what a closure cancels (docs/architecture.md
   * "Party lifecycle").
   */
  async liveOfWorkspace(workspaceId: string): Promise<string[]> {
    const rows = await this.tx.manager.query<{ id: string }[]>(
      `SELECT id FROM recurring_charges
        WHERE (seller_workspace_id = $1 OR buyer_workspace_id = $1)
          AND status IN ('awaiting_authorisation', 'scheduled')
        ORDER BY debit_at, id`,
      [workspaceId],
    );
    return rows.map((r) => r.id);
  }

  /** Whether any debit on the mandate settled (a charge scheduled before one is its first debit). */
  async hasSettled(mandateId: string): Promise<boolean> {
    const rows = await this.tx.manager.query<unknown[]>(
      `SELECT 1 FROM recurring_charges WHERE mandate_id = $1 AND status = 'settled' LIMIT 1`,
      [mandateId],
    );
    return rows.length > 0;
  }

  /**
   * Serialises the schedulers of a mandate's first debit with its registration (a transaction
   * advisory lock on the mandate id), so two sellers cannot both attach one. Always true.
   */
  async serialiseFirstDebit(mandateId: string): Promise<true> {
    await this.tx.manager.query(`SELECT pg_advisory_xact_lock(hashtext('rch-first-' || $1))`, [
      mandateId,
    ]);
    return true;
  }

  /** Whether the mandate has any charge at all (one first debit may come with registration). */
  async hasAny(mandateId: string): Promise<boolean> {
    const rows = await this.tx.manager.query<unknown[]>(
      `SELECT 1 FROM recurring_charges WHERE mandate_id = $1 LIMIT 1`,
      [mandateId],
    );
    return rows.length > 0;
  }

  /** The first debit scheduled with the mandate's registration, still waiting for it. */
  findAwaitingRegistration(mandateId: string): Promise<RecurringCharge | null> {
    return this.tx.manager.findOneBy(RecurringCharge, {
      mandateId,
      status: 'awaiting_authorisation',
      authorisation: 'with_registration',
    });
  }

  /** Newest first, limit + 1 rows (toPage decides has_more). */
  page(
    f: {
      mandateId?: string;
      buyerWorkspaceId?: string;
      sellerWorkspaceId?: string;
      sellerAgentId?: string;
      status?: ChargeStatus[];
    },
    limit: number,
    cursor: Cursor | null,
  ): Promise<RecurringCharge[]> {
    const qb = this.tx.manager.createQueryBuilder(RecurringCharge, 'c').where('TRUE');
    if (f.mandateId) {
      qb.andWhere('c.mandate_id = :mandateId', { mandateId: f.mandateId });
    }
    if (f.buyerWorkspaceId) {
      qb.andWhere('c.buyer_workspace_id = :ws', { ws: f.buyerWorkspaceId });
    }
    if (f.sellerWorkspaceId) {
      qb.andWhere('c.seller_workspace_id = :sellerWs', { sellerWs: f.sellerWorkspaceId });
    }
    if (f.sellerAgentId) {
      qb.andWhere('c.seller_agent_id = :seller', { seller: f.sellerAgentId });
    }
    if (f.status) {
      qb.andWhere('c.status IN (:...status)', { status: f.status });
    }
    return newestFirst(qb, 'c', limit, cursor).getMany();
  }
}

/** Erasure's reach into recurring_charges: rows that can be a person's (docs/personal-data.md "The personal-data map"). */
export const recurringChargesPersonalRows = personalRows(
  'recurring_charges',
  't.buyer_workspace_id = s.ws OR t.seller_workspace_id = s.ws',
);
