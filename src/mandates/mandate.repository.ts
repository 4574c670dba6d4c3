import { Injectable } from '@nestjs/common';
import { EntityManager, In } from 'typeorm';

import { checkoutParts } from '../checkout/checkout-session.repository';
import { Cursor, newestFirst } from '../common/pagination';
import { entityFromJson } from '../database/entity-from-json';
import { param, render, sql, SqlFragment, SqlOperand } from '../database/fragment';
import { personalRows } from '../database/personal-rows';
import { queryPrepared } from '../database/prepared';
import { Tx } from '../database/tx';
import { Mandate, MandateStatus } from './mandate.entity';

/** What delegate_payment checks of a checkout session before minting a token. */
export interface SessionFacts {
  id: string;
  status: string;
  expiresAt: Date;
  sellerAgentId: string;
}

export interface MandateFilter {
  workspaceId: string;
  buyerAgentId?: string;
  /** Effective status (expired includes live rows whose valid_until has passed). */
  status?: MandateStatus;
  now: Date;
}

/** SQL on mandates for another owner's statement: fragments (see `agentParts`). */
export const mandateParts = {
  /** A mandate's rail, as a scalar subquery. */
  railOf: (id: SqlOperand): SqlFragment => sql`(SELECT rail FROM mandates WHERE id = ${id})`,
  /** What the gateway registers of a mandate: per_payment_cap_paise (text), valid_until, billing_cycle. */
  registrationTerms: (id: SqlOperand): SqlFragment =>
    sql`SELECT per_payment_cap_paise::text, valid_until, billing_cycle FROM mandates WHERE id = ${id}`,
  /** A mandate's status, as a scalar subquery. */
  statusOf: (id: SqlOperand): SqlFragment => sql`(SELECT status FROM mandates WHERE id = ${id})`,
  /**
   * The mandate FOR NO KEY UPDATE once `after` (a condition on rows the statement locked first)
   * holds: its scan waits for those locks, keeping the lock order.
   */
  lockAfter: (id: SqlOperand, after: SqlFragment): SqlFragment =>
    sql`SELECT * FROM mandates WHERE id = ${id} AND ${after} FOR NO KEY UPDATE`,
  /**
   * True when the mandate exists and, at `now`, its status is not one of `live` (a list of literals
   * such as sql`'active'`) or it is past valid_until.
   */
  endedAt: (id: SqlOperand, now: SqlOperand, live: SqlFragment): SqlFragment =>
    sql`EXISTS (SELECT 1 FROM mandates m WHERE m.id = ${id} AND (m.status NOT IN (${live}) OR m.valid_until <= ${now}))`,
  /** When the gateway registration after authorisation ended (mandate-registration-state.ts), as a scalar subquery. */
  registrationEndedAt: (id: SqlOperand): SqlFragment =>
    sql`(SELECT gateway_registration_ended_at FROM mandates WHERE id = ${id})`,
  /** Records that end (an UPDATE: it takes the mandate's row lock). */
  markRegistrationEnded: (id: SqlOperand, at: SqlOperand): SqlFragment =>
    sql`UPDATE mandates SET gateway_registration_ended_at = ${at} WHERE id = ${id}`,
  /** When a registration made by a debit last started, as a scalar subquery. */
  registrationStartedAt: (id: SqlOperand): SqlFragment =>
    sql`(SELECT gateway_registration_started_at FROM mandates WHERE id = ${id})`,
  /** Records that start (an UPDATE: it waits for, and then holds, the mandate's row lock). */
  markRegistrationStarted: (id: SqlOperand, at: SqlOperand): SqlFragment =>
    sql`UPDATE mandates SET gateway_registration_started_at = ${at} WHERE id = ${id}`,
};

/** The owner of mandates (docs/architecture.md "Table owners"); MandatesStoreModule exports it. */
/** Personal data (src/personal-data): a workspace's mandates, oldest first. */
export function mandatesOfWorkspace(m: EntityManager, workspaceId: string): Promise<Mandate[]> {
  return m.find(Mandate, { where: { workspaceId }, order: { createdAt: 'ASC', id: 'ASC' } });
}

@Injectable()
export class MandateRepository {
  constructor(private readonly tx: Tx) {}

  async insert(m: Mandate): Promise<void> {
    await this.tx.manager.insert(Mandate, m);
  }

  findById(id: string): Promise<Mandate | null> {
    return this.tx.manager.findOneBy(Mandate, { id });
  }

  /** Mandates by id; unknown ids are left out. */
  findByIds(ids: string[]): Promise<Mandate[]> {
    return ids.length === 0
      ? Promise.resolve([])
      : this.tx.manager.findBy(Mandate, { id: In(ids) });
  }

  findInWorkspace(workspaceId: string, id: string): Promise<Mandate | null> {
    return this.tx.manager.findOneBy(Mandate, { id, workspaceId });
  }

  /** FOR NO KEY UPDATE: authorise, decline and revoke serialise on the row. */
  lockInWorkspace(workspaceId: string, id: string): Promise<Mandate | null> {
    return this.tx.manager.findOne(Mandate, {
      where: { id, workspaceId },
      lock: { mode: 'for_no_key_update' },
    });
  }

  /**
   * The buyer agent's mandate FOR SHARE (a token being minted on it and a person revoking it
   * serialise, so a revocation either sees the new token and revokes it too, or happens first and
   * is seen), and in the same statement the facts of the checkout session a delegate_payment names
   * (status, expiry, seller; null when there is none): one round trip for the two reads
   * delegate_payment makes before it mints a token.
   */
  async lockSharedForBuyerWithSession(
    buyerAgentId: string,
    id: string,
    sessionId: string,
  ): Promise<{ mandate: Mandate | null; session: SessionFacts | null }> {
    const q = render(
      sql`WITH md AS (SELECT * FROM mandates WHERE id = ${id} AND buyer_agent_id = ${buyerAgentId} FOR SHARE)
       SELECT s.id AS session_id, s.status, s.expires_at, s.seller_agent_id,
              (SELECT row_to_json(md) FROM md) AS mandate
         FROM (SELECT 1) AS one LEFT JOIN (${checkoutParts.facts(param(sessionId))}) s ON true`,
    );
    const [row] = (await queryPrepared(this.tx.manager, q.text, q.values)) as {
      session_id: string | null;
      status: string;
      expires_at: Date;
      seller_agent_id: string;
      mandate: Record<string, unknown> | null;
    }[];
    return {
      mandate: row.mandate ? entityFromJson(this.tx.manager, Mandate, row.mandate) : null,
      session: row.session_id
        ? {
            id: row.session_id,
            status: row.status,
            expiresAt: row.expires_at,
            sellerAgentId: row.seller_agent_id,
          }
        : null,
    };
  }

  /**
   * FOR SHARE, by id alone (the seller scheduling a recurring charge lives in another workspace):
   * a charge being scheduled and a person revoking the mandate serialise.
   */
  lockSharedById(id: string): Promise<Mandate | null> {
    return this.tx.manager.findOne(Mandate, { where: { id }, lock: { mode: 'pessimistic_read' } });
  }

  async update(
    id: string,
    patch: Partial<
      Pick<
        Mandate,
        | 'status'
        | 'authorisedBy'
        | 'authorisedAt'
        | 'revokedAt'
        | 'perPaymentCapPaise'
        | 'validUntil'
        | 'payeeAgentIds'
      >
    >,
  ): Promise<void> {
    await this.tx.manager.update(Mandate, { id }, patch);
  }

  /** Newest first, limit + 1 rows (toPage decides has_more). */
  page(f: MandateFilter, limit: number, cursor: Cursor | null): Promise<Mandate[]> {
    const qb = this.tx.manager
      .createQueryBuilder(Mandate, 'm')
      .where('m.workspace_id = :ws', { ws: f.workspaceId });
    if (f.buyerAgentId) {
      qb.andWhere('m.buyer_agent_id = :buyer', { buyer: f.buyerAgentId });
    }
    switch (f.status) {
      case undefined:
        break;
      case 'expired':
        qb.andWhere(
          `(m.status = 'expired' OR (m.status IN ('pending_authorisation', 'active') AND m.valid_until <= :now))`,
          { now: f.now },
        );
        break;
      case 'revoked':
        qb.andWhere(`m.status = 'revoked'`);
        break;
      case 'active':
      case 'pending_authorisation':
        qb.andWhere('m.status = :status AND m.valid_until > :now', {
          status: f.status,
          now: f.now,
        });
        break;
    }
    return newestFirst(qb, 'm', limit, cursor).getMany();
  }

  /** The buyer's newest active mandate with this description, valid at least until `until`. */
  findActiveByDescription(
    buyerAgentId: string,
    description: string,
    until: Date,
  ): Promise<Mandate | null> {
    return this.tx.manager
      .createQueryBuilder(Mandate, 'm')
      .where('m.buyer_agent_id = :buyerAgentId AND m.description = :description', {
        buyerAgentId,
        description,
      })
      .andWhere(`m.status = 'active' AND m.valid_until > :until`, { until })
      .orderBy('m.created_at', 'DESC')
      .getOne();
  }

  /** True when the mandate exists and was authorised for this buyer agent. */
  async belongsTo(mandateId: string, buyerAgentId: string): Promise<boolean> {
    return this.tx.manager.exists(Mandate, { where: { id: mandateId, buyerAgentId } });
  }

  /** SELECT … FOR NO KEY UPDATE (lock order: docs/architecture.md). */
  lock(id: string): Promise<Mandate | null> {
    return this.tx.manager.findOne(Mandate, { where: { id }, lock: { mode: 'for_no_key_update' } });
  }
}

/** Erasure's reach into mandates: rows that can be a person's (docs/personal-data.md "The personal-data map"). */
export const mandatesPersonalRows = personalRows('mandates', 't.workspace_id = s.ws');
