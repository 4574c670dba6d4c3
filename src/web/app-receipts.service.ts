import { Inject, Injectable } from '@nestjs/common';

import { ChainService } from '../chains/chain.service';
import { commonErrors } from '../common/errors/app-error';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { PaymentsService } from '../payments/payments.service';
import { RefundsService } from '../refunds/refunds.service';
import { AppLayout } from './app-layout.service';
import { AppReadModel } from './app-read-model';
import { itemsOf } from './approval-cards';
import { formatIst } from './local-time';
import type { SignedInPerson } from './signed-in-person';

/** The signed receipt as a person reads it: one entry per event, hashes that wrap, times in IST. */
export interface ReceiptEntryView {
  seq: number;
  type: string;
  typeLabel: string;
  hash: string;
  prevHash: string;
  kid: string;
  at: string;
}

const ENTRY_LABEL: Record<string, string> = {
  'payment.settled': 'Payment settled',
  'refund.succeeded': 'Refund credited',
};

export function receiptEntryViews(
  entries: {
    seq: number;
    hash: string;
    prev_hash: string;
    kid: string;
    created_at: string;
    payload: Record<string, unknown>;
  }[],
): ReceiptEntryView[] {
  return entries.map((e) => {
    const type = typeof e.payload.type === 'string' ? e.payload.type : 'entry';
    return {
      seq: e.seq,
      type,
      typeLabel: ENTRY_LABEL[type] ?? type,
      hash: e.hash,
      prevHash: e.prev_hash,
      kid: e.kid,
      at: formatIst(e.created_at),
    };
  });
}

/**
 * {appUrl}/receipts/:id: the receipt of a payment made by (or to) one of the person's agents, for
 * payments without a public order page (quotes, hosted pay). Another workspace's receipt is a 404.
 */
@Injectable()
export class AppReceiptsService {
  constructor(
    private readonly payments: PaymentsService,
    private readonly chains: ChainService,
    private readonly read: AppReadModel,
    private readonly refunds: RefundsService,
    private readonly layout: AppLayout,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async receiptPage(person: SignedInPerson, receiptId: string) {
    const intent = /^rcp_[A-Za-z0-9]{1,64}$/.test(receiptId)
      ? await this.payments.intentByReceipt(receiptId)
      : null;
    if (
      !intent ||
      (intent.buyerWorkspaceId !== person.workspaceId &&
        intent.sellerWorkspaceId !== person.workspaceId)
    ) {
      throw commonErrors.notFound('receipt', receiptId);
    }
    const [entries, names, sessions, quotes, refundability] = await Promise.all([
      this.chains.entries(receiptId),
      this.read.agentNames([intent.sellerAgentId, intent.buyerAgentId]),
      this.read.checkoutSessions(intent.sourceKind === 'checkout' ? [intent.sourceId] : []),
      this.read.quotes(intent.sourceKind !== 'checkout' ? [intent.sourceId] : []),
      this.refunds.refundabilityOf([intent]),
    ]);
    const refund = refundability.get(intent.id);
    return this.layout.page(person, `Receipt ${receiptId}`, {
      receipt: {
        id: receiptId,
        seller: names.get(intent.sellerAgentId) ?? intent.sellerAgentId,
        buyer: names.get(intent.buyerAgentId) ?? intent.buyerAgentId,
        amountPaise: intent.amountPaise,
        refundedPaise: intent.amountRefundedPaise,
        // What can still be refunded on this rail; when a settled payment has money left that the
        // rail cannot refund (below its minimum refund), the reason in words (docs/gateway.md "Refund limits").
        refundablePaise: refund?.refundablePaise ?? 0,
        notRefundable:
          refund && refund.leftPaise > 0 && refund.refundablePaise === 0
            ? refund.notRefundableReason
            : null,
        paidAt: intent.settledAt ? formatIst(intent.settledAt) : null,
        items: itemsOf(intent, sessions, quotes),
        entries: receiptEntryViews(entries),
      },
      jwksUrl: `${this.config.baseUrl}/.well-known/jwks.json`,
    });
  }
}
