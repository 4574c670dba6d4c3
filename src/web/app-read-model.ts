import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';

import { Agent } from '../accounts/entities/agent.entity';
import { CheckoutSession } from '../checkout/checkout-session.entity';
import { Tx } from '../database/tx';
import { Mandate } from '../mandates/mandate.entity';
import { Quote } from '../quotes/quote.entity';
import { Refund } from '../refunds/refund.entity';

/** One line a person reads: what, how many, at what unit price. */
export interface ItemLine {
  name: string;
  quantity: number;
  unitPaise: number;
  amountPaise: number;
}

/**
 * Read-only lookups the app pages need across aggregates (names, the lines of a checkout or
 * quote, refunds of a workspace's payments). Nothing here writes; the owning services keep
 * every rule. Unknown ids are simply missing from the answers.
 */
@Injectable()
export class AppReadModel {
  constructor(private readonly tx: Tx) {}

  async agentNames(ids: string[]): Promise<Map<string, string>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) {
      return new Map();
    }
    const rows = await this.tx.manager.find(Agent, {
      where: { id: In(unique) },
      select: { id: true, name: true },
    });
    return new Map(rows.map((a) => [a.id, a.name]));
  }

  async mandates(ids: string[]): Promise<Map<string, Mandate>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) {
      return new Map();
    }
    const rows = await this.tx.manager.findBy(Mandate, { id: In(unique) });
    return new Map(rows.map((m) => [m.id, m]));
  }

  async checkoutSessions(ids: string[]): Promise<Map<string, CheckoutSession>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) {
      return new Map();
    }
    const rows = await this.tx.manager.findBy(CheckoutSession, { id: In(unique) });
    return new Map(rows.map((s) => [s.id, s]));
  }

  async quotes(ids: string[]): Promise<Map<string, Quote>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) {
      return new Map();
    }
    const rows = await this.tx.manager.findBy(Quote, { id: In(unique) });
    return new Map(rows.map((q) => [q.id, q]));
  }

  async refunds(ids: string[]): Promise<Map<string, Refund>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) {
      return new Map();
    }
    const rows = await this.tx.manager.findBy(Refund, { id: In(unique) });
    return new Map(rows.map((r) => [r.id, r]));
  }

  /** Newest refunds of payments that the workspace's buyer agents made. */
  async recentRefundsToWorkspace(workspaceId: string, limit: number): Promise<Refund[]> {
    return this.tx.manager
      .createQueryBuilder(Refund, 'r')
      .innerJoin('payment_intents', 'i', 'i.id = r.intent_id')
      .where('i.buyer_workspace_id = :workspaceId', { workspaceId })
      .orderBy('r.created_at', 'DESC')
      .addOrderBy('r.id', 'DESC')
      .limit(limit)
      .getMany();
  }
}
