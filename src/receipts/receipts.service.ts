import { Inject, Injectable } from '@nestjs/common';

import { ChainService } from '../chains/chain.service';
import { ChainEntryJson } from '../chains/chain-entry';
import { AppError } from '../common/errors/app-error';
import { newId } from '../common/ids';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import type { PaymentIntent } from '../payments/entities/payment-intent.entity';
import { PaymentIntentRepository } from '../payments/payment-intent.repository';

export interface ReceiptView {
  id: string;
  object: 'receipt';
  intent_id: string;
  buyer_agent_id: string;
  seller_agent_id: string;
  amount_paise: number;
  amount_refunded_paise: number;
  currency: string;
  status: string;
  /** The signed hash chain: entry 1 is the settled payment; refunds append after it. */
  entries: ChainEntryJson[];
  verification: { jwks_url: string; hash_rule: string; signature: string };
}

export const HASH_RULE =
  'hash = hex(SHA-256(prev_hash + "\\n" + JCS({chain_id, seq, created_at, payload}))); prev_hash of seq 1 = 64 zeros';

export const receiptErrors = {
  notFound: (id: string) => new AppError(404, 'invalid_request', 'not_found', `No receipt ${id}`),
};

/**
 * A receipt is a signed hash chain of its own (chain id = receipt id rcp_…), started when the
 * intent settles and extended by refunds. Appends join the caller's transaction, so a receipt
 * exists iff the settlement committed.
 */
@Injectable()
export class ReceiptsService {
  constructor(
    private readonly chains: ChainService,
    private readonly intents: PaymentIntentRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async issueForPayment(
    intent: PaymentIntent,
    context: Record<string, unknown>,
  ): Promise<{ receiptId: string; entry: ChainEntryJson }> {
    const receiptId = newId('rcp');
    // A fresh id: the chain and its first entry in one statement.
    const entry = await this.chains.start(receiptId, {
      type: 'payment.settled',
      receipt_id: receiptId,
      intent_id: intent.id,
      amount_paise: intent.amountPaise,
      currency: intent.currency,
      buyer: { workspace_id: intent.buyerWorkspaceId, agent_id: intent.buyerAgentId },
      seller: { workspace_id: intent.sellerWorkspaceId, agent_id: intent.sellerAgentId },
      source: { kind: intent.sourceKind, id: intent.sourceId },
      token_id: intent.tokenId,
      mandate_id: intent.mandateId,
      rail: intent.rail,
      rail_reference: intent.railReference,
      created_at: intent.createdAt.toISOString(),
      settled_at: intent.settledAt?.toISOString() ?? null,
      ...context,
    });
    return { receiptId, entry };
  }

  /** Appends a later event (e.g. a refund) to an intent's receipt chain. */
  async append(receiptId: string, payload: Record<string, unknown>): Promise<ChainEntryJson> {
    return this.chains.append(receiptId, { receipt_id: receiptId, ...payload });
  }

  /** The receipt if `agentId` is the buyer or the seller of its intent; otherwise 404. */
  async viewFor(receiptId: string, agentId: string): Promise<ReceiptView> {
    const intent = await this.intents.findByReceipt(receiptId);
    if (!intent || (intent.buyerAgentId !== agentId && intent.sellerAgentId !== agentId)) {
      throw receiptErrors.notFound(receiptId);
    }
    return {
      id: receiptId,
      object: 'receipt',
      intent_id: intent.id,
      buyer_agent_id: intent.buyerAgentId,
      seller_agent_id: intent.sellerAgentId,
      amount_paise: intent.amountPaise,
      amount_refunded_paise: intent.amountRefundedPaise,
      currency: intent.currency,
      status: intent.status,
      entries: await this.chains.entries(receiptId),
      verification: {
        jwks_url: `${this.config.baseUrl}/.well-known/jwks.json`,
        hash_rule: HASH_RULE,
        signature:
          'each entry.jws is a compact JWS (EdDSA, kid in header) whose payload is entry.hash',
      },
    };
  }
}
