import { Injectable } from '@nestjs/common';

import { decodeCursor, Page, toPage } from '../common/pagination';
import type { IntentStatus } from '../payments/entities/payment-intent.entity';
import { PaymentIntentRepository } from '../payments/payment-intent.repository';
import { ReceiptsService } from '../receipts/receipts.service';
import type { Refundability } from '../refunds/refund-limits';
import { RefundsService } from '../refunds/refunds.service';
import type { IntentDetailResponse, IntentResponse } from './dto/intent.response';
import type { IntentSide } from './dto/list-intents.query';
import { toIntentResponse } from './intent.mapper';
import { intentErrors } from './intents.errors';

/** Payments as each party sees them: the seller its takings, the buyer its spending. */
@Injectable()
export class IntentsService {
  constructor(
    private readonly intents: PaymentIntentRepository,
    private readonly receipts: ReceiptsService,
    private readonly refunds: RefundsService,
  ) {}

  async list(
    agentId: string,
    q: { side: IntentSide; status?: IntentStatus; limit?: number; startingAfter?: string },
  ): Promise<Page<IntentResponse>> {
    const limit = q.limit ?? 20;
    const rows = await this.intents.listForAgent(
      agentId,
      q.side,
      q.status,
      limit,
      decodeCursor(q.startingAfter),
    );
    const refundability = await this.refunds.refundabilityOf(rows);
    return toPage(rows, limit, (i) =>
      toIntentResponse(i, q.side, refundability.get(i.id) as Refundability),
    );
  }

  /** The intent with its receipt and refunds, for its buyer or seller; anyone else gets 404. */
  async getForParty(agentId: string, intentId: string): Promise<IntentDetailResponse> {
    const intent = await this.intents.find(intentId);
    if (!intent || (intent.sellerAgentId !== agentId && intent.buyerAgentId !== agentId)) {
      throw intentErrors.notFound(intentId);
    }
    const side: IntentSide = intent.sellerAgentId === agentId ? 'seller' : 'buyer';
    const [receipt, refunds, refundability] = await Promise.all([
      intent.receiptId ? this.receipts.viewFor(intent.receiptId, agentId) : Promise.resolve(null),
      this.refunds.listForIntent(intent.id, 100),
      this.refunds.refundabilityOf([intent]),
    ]);
    return {
      ...toIntentResponse(intent, side, refundability.get(intent.id) as Refundability),
      receipt,
      refunds,
    };
  }
}
