import { Inject, Injectable } from '@nestjs/common';

import { ChainService } from '../chains/chain.service';
import { commonErrors } from '../common/errors/app-error';
import { Translator, translator } from '../common/i18n/catalogue';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import type { PaymentIntent } from '../payments/entities/payment-intent.entity';
import { PaymentIntentRepository } from '../payments/payment-intent.repository';
import type { Refundability } from '../refunds/refund-limits';
import { RefundsService } from '../refunds/refunds.service';
import { AppLayout } from './app-layout.service';
import { AppReadModel } from './app-read-model';
import { itemsOf } from './approval-cards';
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

/** Catalogue keys of the steps a payment's receipt records (locales/<lang>/receipts.json). */
const ENTRY_LABEL: Record<string, string> = {
  'payment.settled': 'receipts.chain.types.payment_settled',
  'refund.succeeded': 'receipts.chain.types.refund_succeeded',
};

/** The receipt's steps in the page's language (English when no Translator is given). */
export function receiptEntryViews(
  entries: {
    seq: number;
    hash: string;
    prev_hash: string;
    kid: string;
    created_at: string;
    payload: Record<string, unknown>;
  }[],
  tr: Translator = translator('en'),
): ReceiptEntryView[] {
  return entries.map((e) => {
    const type = typeof e.payload.type === 'string' ? e.payload.type : 'entry';
    return {
      seq: e.seq,
      type,
      typeLabel: tr.t(ENTRY_LABEL[type] ?? 'receipts.chain.types.other'),
      hash: e.hash,
      prevHash: e.prev_hash,
      kid: e.kid,
      at: tr.ist(e.created_at),
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
    private readonly intents: PaymentIntentRepository,
    private readonly chains: ChainService,
    private readonly read: AppReadModel,
    private readonly refunds: RefundsService,
    private readonly layout: AppLayout,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async receiptPage(person: SignedInPerson, receiptId: string, tr: Translator = translator('en')) {
    const intent = /^rcp_[A-Za-z0-9]{1,64}$/.test(receiptId)
      ? await this.intents.findByReceipt(receiptId)
      : null;
    if (
      !intent ||
      (intent.buyerWorkspaceId !== person.workspaceId &&
        intent.sellerWorkspaceId !== person.workspaceId)
    ) {
      throw commonErrors.notFound('receipt', receiptId);
    }
    const [entries, names, sessions, quotes, refundability, mandates] = await Promise.all([
      this.chains.entries(receiptId),
      this.read.agentNames([intent.sellerAgentId, intent.buyerAgentId]),
      this.read.checkoutSessions(intent.sourceKind === 'checkout' ? [intent.sourceId] : []),
      this.read.quotes(intent.sourceKind !== 'checkout' ? [intent.sourceId] : []),
      this.refunds.refundabilityOf([intent]),
      this.read.mandates(intent.mandateId ? [intent.mandateId] : []),
    ]);
    const refund = refundability.get(intent.id);
    const seller = names.get(intent.sellerAgentId) ?? tr.t('receipts.seller');
    const items = itemsOf(intent, sessions, quotes).map((i) => ({
      ...i,
      line: tr.t('receipts.item_line', {
        quantity: i.quantity,
        name: i.name,
        unit: tr.rupees(i.unitPaise),
      }),
    }));
    return this.layout.page(person, tr.t('receipts.title', { seller }), {
      receipt: {
        id: receiptId,
        paymentId: intent.id,
        mandateId: intent.mandateId,
        seller,
        buyer: names.get(intent.buyerAgentId) ?? tr.t('receipts.paid_by'),
        amountPaise: intent.amountPaise,
        refundedPaise: intent.amountRefundedPaise,
        // What can still be refunded on this rail; when a settled payment has money left that the
        // rail cannot refund, the reason in words (docs/gateway.md "Refund limits").
        refundablePaise: refund?.refundablePaise ?? 0,
        notRefundable:
          refund && refund.leftPaise > 0 && refund.refundablePaise === 0
            ? notRefundableWords(tr, intent.rail, refund)
            : null,
        paidAt: intent.settledAt ? tr.ist(intent.settledAt) : null,
        method: methodWords(
          tr,
          intent,
          intent.mandateId ? mandates.get(intent.mandateId)?.rail : undefined,
        ),
        rail: railWords(tr, intent.rail),
        // Only when the seller listed no items: what the payment was for, in the agent's words.
        description: items.length === 0 ? intent.description || null : null,
        items,
        entries: receiptEntryViews(entries, tr),
      },
      jwksUrl: `${this.config.baseUrl}/.well-known/jwks.json`,
    });
  }
}

/** How the money moved, in words: never a masked id (docs/languages.md). */
function methodWords(
  tr: Translator,
  intent: Pick<PaymentIntent, 'sourceKind' | 'mandateId'>,
  mandateRail: string | undefined,
): string {
  if (intent.sourceKind === 'recurring') {
    return tr.t('receipts.methods.recurring');
  }
  if (intent.sourceKind === 'hosted') {
    return tr.t('receipts.methods.hosted');
  }
  if (intent.mandateId) {
    const known = ['upi_reserve_pay', 'upi_otm', 'upi_autopay'].includes(mandateRail ?? '');
    return tr.t(`receipts.methods.mandate.${known ? mandateRail : 'other'}`);
  }
  return tr.t('receipts.methods.other');
}

function railWords(tr: Translator, rail: string): string | null {
  return rail === 'sandbox' || rail === 'gateway' ? tr.t(`receipts.rails.${rail}`) : null;
}

/**
 * Why money left on a settled payment cannot be refunded, in the page's language: the same two
 * cases as refundabilityOf (src/refunds/refund-limits.ts) that leave money but allow no refund.
 */
function notRefundableWords(tr: Translator, rail: string, r: Refundability): string {
  const railName = tr.t(
    rail === 'gateway'
      ? 'receipts.not_refundable_reason.rail_gateway'
      : 'receipts.not_refundable_reason.rail_sandbox',
  );
  if (r.leftPaise < r.minimumPaise) {
    return tr.t('receipts.not_refundable_reason.below_minimum', {
      left: tr.rupees(r.leftPaise),
      rail: railName,
      minimum: tr.rupees(r.minimumPaise),
    });
  }
  return tr.t('receipts.not_refundable_reason.full_only', { rail: railName });
}
