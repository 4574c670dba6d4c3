import { Inject, Injectable } from '@nestjs/common';

import { AccountsService } from '../accounts/accounts.service';
import { ChainService } from '../chains/chain.service';
import { commonErrors } from '../common/errors/app-error';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import type { MandateRail } from '../mandates/mandate.entity';
import { PaymentsService } from '../payments/payments.service';
import { AppReadModel } from '../web/app-read-model';
import { ReceiptEntryView, receiptEntryViews } from '../web/app-receipts.service';
import { formatIst } from '../web/local-time';
import { lineTotal, sessionTotal } from './checkout-pricing';
import { CheckoutSessionRepository } from './checkout-session.repository';

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
    entries: ReceiptEntryView[];
  } | null;
  jwksUrl: string;
}

const RAIL: Record<MandateRail, string> = {
  upi_reserve_pay: 'UPI Reserve Pay mandate',
  upi_otm: 'UPI one-time mandate',
  upi_autopay: 'UPI AutoPay mandate',
};

/**
 * The public order page behind order.permalink_url (docs/acp.md §9): anyone holding the unguessable
 * order id sees what was bought, from whom, for how much, and the receipt's chain hashes to check
 * against /.well-known/jwks.json, times in IST. No buyer details or tokens; the mandate only as
 * its rail and last four characters.
 */
@Injectable()
export class OrderPageService {
  constructor(
    private readonly repo: CheckoutSessionRepository,
    private readonly payments: PaymentsService,
    private readonly chains: ChainService,
    private readonly accounts: AccountsService,
    private readonly read: AppReadModel,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async orderPage(orderId: string): Promise<OrderPage> {
    const session = /^ord_[A-Za-z0-9]{1,64}$/.test(orderId)
      ? await this.repo.findByOrderId(orderId)
      : null;
    if (!session || session.status !== 'completed' || !session.intentId) {
      throw commonErrors.notFound('order', orderId);
    }
    const intent = await this.payments.getIntent(session.intentId);
    const seller = await this.accounts.getAgent(session.workspaceId, session.sellerAgentId);
    const entries = intent.receiptId ? await this.chains.entries(intent.receiptId) : [];
    const mandate = intent.mandateId
      ? (await this.read.mandates([intent.mandateId])).get(intent.mandateId)
      : undefined;
    return {
      title: `Order ${orderId}`,
      modeBanner:
        this.config.mode === 'live'
          ? null
          : this.config.mode === 'test'
            ? 'common.mode.test'
            : 'common.mode.sandbox',
      order: {
        id: orderId,
        status: 'confirmed',
        checkoutSessionId: session.id,
        sellerName: seller.name,
        completedAt: formatIst(session.completedAt ?? session.updatedAt),
        totalPaise: sessionTotal(session.lineItems),
        refundedPaise: intent.amountRefundedPaise,
        paymentMethod: mandate
          ? `${RAIL[mandate.rail]} ····${mandate.id.slice(-4)}`
          : 'UPI mandate',
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
            entries: receiptEntryViews(entries),
          }
        : null,
      jwksUrl: `${this.config.baseUrl}/.well-known/jwks.json`,
    };
  }
}
