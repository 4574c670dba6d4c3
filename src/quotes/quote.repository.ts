import { Injectable } from '@nestjs/common';

import { Tx } from '../database/tx';
import { Quote } from './quote.entity';

export interface QuoteParty {
  id: string;
  workspaceId: string;
  name: string;
  role: 'seller' | 'buyer' | 'both';
}

/** The only SQL of the quotes module (offers are looked up through SellerService). */
@Injectable()
export class QuoteRepository {
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

  findByIntent(intentId: string): Promise<Quote | null> {
    return this.tx.manager.findOneBy(Quote, { intentId });
  }

  async update(
    id: string,
    changes: Partial<Pick<Quote, 'status' | 'intentId' | 'paidAt' | 'canceledAt' | 'updatedAt'>>,
  ): Promise<void> {
    await this.tx.manager.update(Quote, { id }, changes);
  }

  /** An enabled agent by id (any workspace), for naming the parties of a quote. */
  async findEnabledAgent(id: string): Promise<QuoteParty | null> {
    const [row] = await this.tx.manager.query<
      { id: string; workspace_id: string; name: string; role: QuoteParty['role'] }[]
    >('SELECT id, workspace_id, name, role FROM agents WHERE id = $1 AND disabled_at IS NULL', [
      id,
    ]);
    return row
      ? { id: row.id, workspaceId: row.workspace_id, name: row.name, role: row.role }
      : null;
  }

  /** True when the mandate exists and was authorised for this buyer agent. */
  async mandateBelongsTo(mandateId: string, buyerAgentId: string): Promise<boolean> {
    const rows = await this.tx.manager.query<unknown[]>(
      'SELECT 1 FROM mandates WHERE id = $1 AND buyer_agent_id = $2',
      [mandateId, buyerAgentId],
    );
    return rows.length > 0;
  }
}
