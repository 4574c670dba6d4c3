import { Injectable } from '@nestjs/common';

import { Cursor, newestFirst } from '../common/pagination';
import { Tx } from '../database/tx';
import { IntentStatus, PaymentIntent } from '../payments/entities/payment-intent.entity';
import type { IntentSide } from './dto/list-intents.query';

/** Read-only queries on payment_intents for the seller surface (the pipeline owns the writes). */
@Injectable()
export class IntentRepository {
  constructor(private readonly tx: Tx) {}

  find(id: string): Promise<PaymentIntent | null> {
    return this.tx.manager.findOneBy(PaymentIntent, { id });
  }

  /** One side's intents of an agent, newest first, limit + 1 rows (for toPage). */
  listForAgent(
    agentId: string,
    side: IntentSide,
    status: IntentStatus | undefined,
    limit: number,
    after: Cursor | null,
  ): Promise<PaymentIntent[]> {
    // Each side has its own (agent_id, created_at DESC) index.
    const column = side === 'seller' ? 'i.seller_agent_id' : 'i.buyer_agent_id';
    const qb = this.tx.manager
      .createQueryBuilder(PaymentIntent, 'i')
      .where(`${column} = :agentId`, { agentId });
    if (status) {
      qb.andWhere('i.status = :status', { status });
    }
    return newestFirst(qb, 'i', limit, after).getMany();
  }
}
