import { Injectable } from '@nestjs/common';

import { AgentRepository } from '../accounts/agent.repository';
import type { CheckoutSession } from '../checkout/checkout-session.entity';
import { CheckoutSessionRepository } from '../checkout/checkout-session.repository';
import type { Mandate } from '../mandates/mandate.entity';
import { MandateRepository } from '../mandates/mandate.repository';
import type { Quote } from '../quotes/quote.entity';
import { QuoteRepository } from '../quotes/quote.repository';
import type { Refund } from '../refunds/refund.entity';
import { RefundRepository } from '../refunds/refund.repository';

/** One line a person reads: what, how many, at what unit price. */
export interface ItemLine {
  name: string;
  quantity: number;
  unitPaise: number;
  amountPaise: number;
}

/**
 * Read-only lookups the app pages need across aggregates (names, the lines of a checkout or
 * quote, refunds of a workspace's payments), through each table's owner (docs/architecture.md
 * "Table owners"). Nothing here writes; the owning services keep every rule. Unknown ids are simply missing from the answers.
 */
@Injectable()
export class AppReadModel {
  constructor(
    private readonly agentRows: AgentRepository,
    private readonly mandateRows: MandateRepository,
    private readonly sessionRows: CheckoutSessionRepository,
    private readonly quoteRows: QuoteRepository,
    private readonly refundRows: RefundRepository,
  ) {}

  async agentNames(ids: string[]): Promise<Map<string, string>> {
    const rows = await this.agentRows.findByIds([...new Set(ids)]);
    return new Map(rows.map((a) => [a.id, a.name]));
  }

  async mandates(ids: string[]): Promise<Map<string, Mandate>> {
    return byId(await this.mandateRows.findByIds([...new Set(ids)]));
  }

  async checkoutSessions(ids: string[]): Promise<Map<string, CheckoutSession>> {
    return byId(await this.sessionRows.findByIds([...new Set(ids)]));
  }

  async quotes(ids: string[]): Promise<Map<string, Quote>> {
    return byId(await this.quoteRows.findByIds([...new Set(ids)]));
  }

  async refunds(ids: string[]): Promise<Map<string, Refund>> {
    return byId(await this.refundRows.findByIds([...new Set(ids)]));
  }

  /** Newest refunds of payments that the workspace's buyer agents made. */
  recentRefundsToWorkspace(workspaceId: string, limit: number): Promise<Refund[]> {
    return this.refundRows.recentToBuyerWorkspace(workspaceId, limit);
  }
}

function byId<T extends { id: string }>(rows: T[]): Map<string, T> {
  return new Map(rows.map((r) => [r.id, r]));
}
