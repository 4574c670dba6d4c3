import { Inject, Injectable } from '@nestjs/common';

import { AccountsService } from '../accounts/accounts.service';
import { ChainService } from '../chains/chain.service';
import { commonErrors } from '../common/errors/app-error';
import { Translator, translator } from '../common/i18n/catalogue';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import type { MandateRail } from '../mandates/mandate.entity';
import { PaymentIntentRepository } from '../payments/payment-intent.repository';
import { AppReadModel } from '../web/app-read-model';
import { lineTotal, sessionTotal } from './checkout-pricing';
import { CheckoutSessionRepository } from './checkout-session.repository';

/** One signed step of the receipt, as the order page reads it (times in IST, in words). */
export interface OrderReceiptEntry {
  seq: number;
  label: string;
  hash: string;
  prevHash: string;
  kid: string;
  at: string;
}

export interface OrderPage {
  title: string;
  modeBanner: string | null;
  order: {
    id: string;
    status: string;
    checkoutSessionId: string;
    sellerName: string;
    completedAt: string;
    totalPaise: number;
    refundedPaise: number;
    paymentMethod: string;
    /** The mandate's last four characters ("ending in ncy5" under Details), never its whole id here. */
    mandateLast4: string | null;
    lines: {
      name: string;
      sku: string;
      quantity: number;
      unitPaise: number;
      amountPaise: number;
    }[];
  };
  receipt: {
    id: string;
    entries: OrderReceiptEntry[];
  } | null;
  jwksUrl: string;
}

const RAILS: MandateRail[] = ['upi_reserve_pay', 'upi_otm', 'upi_autopay'];

const ENTRY_KEY: Record<string, string> = {
  'payment.settled': 'order.verify.entry.payment_settled',
  'refund.succeeded': 'order.verify.entry.refund_succeeded',
};

/**
 * The public order page behind order.permalink_url (docs/acp.md §9): anyone holding the unguessable
 * order id sees what was bought, from whom, for how much, and the receipt's chain hashes to check
 * against /.well-known/jwks.json, times in IST, in the page's language (docs/languages.md). No
 * buyer details or tokens; the mandate only as its rail in words, and its last four characters
 * under Details.
 */
@Injectable()
export class OrderPageService {
  constructor(
    private readonly repo: CheckoutSessionRepository,
    private readonly intents: PaymentIntentRepository,
    private readonly chains: ChainService,
    private readonly accounts: AccountsService,
    private readonly read: AppReadModel,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async orderPage(orderId: string, tr: Translator = translator('en')): Promise<OrderPage> {
    const session = /^ord_[A-Za-z0-9]{1,64}$/.test(orderId)
      ? await this.repo.findByOrderId(orderId)
      : null;
    if (!session || session.status !== 'completed' || !session.intentId) {
      throw commonErrors.notFound('order', orderId);
    }
    const intent = await this.intents.get(session.intentId);
    const seller = await this.accounts.getAgent(session.workspaceId, session.sellerAgentId);
    const entries = intent.receiptId ? await this.chains.entries(intent.receiptId) : [];
    const mandate = intent.mandateId
      ? (await this.read.mandates([intent.mandateId])).get(intent.mandateId)
      : undefined;
    return {
      title: tr.t('order.title', { seller: seller.name }),
      modeBanner:
        this.config.mode === 'live'
          ? null
          : this.config.mode === 'test'
            ? 'common.mode.test'
            : 'common.mode.sandbox',
      order: {
        id: orderId,
        status: tr.t('order.status.paid'),
        checkoutSessionId: session.id,
        sellerName: seller.name,
        completedAt: tr.ist(session.completedAt ?? session.updatedAt),
        totalPaise: sessionTotal(session.lineItems),
        refundedPaise: intent.amountRefundedPaise,
        paymentMethod: tr.t(
          `order.method.${mandate && RAILS.includes(mandate.rail) ? mandate.rail : 'unknown'}`,
        ),
        mandateLast4: mandate ? mandate.id.slice(-4) : null,
        lines: session.lineItems.map((l) => ({
          name: l.name,
          sku: l.sku,
          quantity: l.quantity,
          unitPaise: l.unit_paise,
          amountPaise: lineTotal(l),
        })),
      },
      receipt: intent.receiptId
        ? {
            id: intent.receiptId,
            entries: entries.map((e) => ({
              seq: e.seq,
              label: tr.t(ENTRY_KEY[String(e.payload.type)] ?? 'order.verify.entry.other'),
              hash: e.hash,
              prevHash: e.prev_hash,
              kid: e.kid,
              at: tr.ist(e.created_at),
            })),
          }
        : null,
      jwksUrl: `${this.config.baseUrl}/.well-known/jwks.json`,
    };
  }
}
