import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';

import { personalRows } from '../database/personal-rows';
import { Tx } from '../database/tx';
import { Quote } from './quote.entity';

export interface QuoteParty {
  id: string;
  workspaceId: string;
  name: string;
  role: 'seller' | 'buyer' | 'both';
}

/**
 * The owner of quotes (docs/architecture.md "Table owners"); offers are SellerService's, agents
 * AgentRepository's, mandates MandateRepository's.
 */
@Injectable()
export class QuoteRepository {
  /** Quotes by id; unknown ids are left out. */
  findByIds(ids: string[]): Promise<Quote[]> {
    return ids.length === 0 ? Promise.resolve([]) : this.tx.manager.findBy(Quote, { id: In(ids) });
  }

  constructor(private readonly tx: Tx) {}

  async insert(quote: Quote): Promise<void> {
    await this.tx.manager.insert(Quote, quote);
  }

  find(id: string): Promise<Quote | null> {
    return this.tx.manager.findOneBy(Quote, { id });
  }

  /** SELECT … FOR NO KEY UPDATE: every state change of a quote happens under this lock. */
  lock(id: string, opts: { skipLocked?: boolean } = {}): Promise<Quote | null> {
    return this.tx.manager.findOne(Quote, {
      where: { id },
      lock: {
        mode: 'for_no_key_update',
        ...(opts.skipLocked ? { onLocked: 'skip_locked' as const } : {}),
      },
    });
  }

  /**
   * Ids of the open or pending_approval quotes this workspace sells or buys on, oldest first (no
   * locks): what a closure cancels (docs/architecture.md "Party lifecycle").
   */
  async openOfWorkspace(workspaceId: string): Promise<string[]> {
    const rows = await this.tx.manager.query<{ id: string }[]>(
      `SELECT id FROM quotes
        WHERE (seller_workspace_id = $1 OR buyer_workspace_id = $1)
          AND status IN ('open', 'pending_approval')
        ORDER BY created_at, id`,
      [workspaceId],
    );
    return rows.map((r) => r.id);
  }

  findByIntent(intentId: string): Promise<Quote | null> {
    return this.tx.manager.findOneBy(Quote, { intentId });
  }

  async update(
    id: string,
    changes: Partial<Pick<Quote, 'status' | 'intentId' | 'paidAt' | 'canceledAt' | 'updatedAt'>>,
  ): Promise<void> {
    await this.tx.manager.update(Quote, { id }, changes);
  }
}

/** Erasure's reach into quotes: rows that can be a person's (docs/personal-data.md "The personal-data map"). */
export const quotesPersonalRows = personalRows(
  'quotes',
  't.seller_workspace_id = s.ws OR t.buyer_workspace_id = s.ws',
);
