import { Inject, Injectable } from '@nestjs/common';

import type { Approval, ApprovalStatus } from '../approvals/approval.entity';
import type { CheckoutSession } from '../checkout/checkout-session.entity';
import { Clock } from '../common/clock';
import { Translator, translator } from '../common/i18n/catalogue';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import type { Mandate } from '../mandates/mandate.entity';
import { describedAs } from '../mandates/mandate-views';
import type { PaymentIntent } from '../payments/entities/payment-intent.entity';
import { PaymentIntentRepository } from '../payments/payment-intent.repository';
import type { Quote } from '../quotes/quote.entity';
import type { Refund } from '../refunds/refund.entity';
import { AppReadModel, ItemLine } from './app-read-model';

/** What a person reads on one approval: what, from whom, how much, on which mandate, until when. */
export interface ApprovalCard {
  id: string;
  kind: Approval['kind'];
  kindLabel: string;
  title: string;
  summary: string;
  status: ApprovalStatus;
  statusLabel: string;
  pending: boolean;
  amountPaise: number;
  seller: string | null;
  buyer: string | null;
  items: ItemLine[];
  refundReason: string | null;
  originalPaymentPaise: number | null;
  mandate: { id: string; capPaise: number; validUntil: string; label: string } | null;
  dailyCap: { capPaise: number; committedPaise: number; leftPaise: number; over: boolean } | null;
  expiresAt: string;
  expiresIn: string;
  decidedAt: string | null;
  /** Above the approval threshold: both answers go through a confirmation step. */
  needsConfirm: boolean;
  outcome: {
    tone: 'good' | 'bad' | 'neutral';
    heading: string;
    text: string;
    receiptHref: string | null;
  } | null;
}

interface Context {
  intents: Map<string, PaymentIntent>;
  refunds: Map<string, Refund>;
  sessions: Map<string, CheckoutSession>;
  quotes: Map<string, Quote>;
  names: Map<string, string>;
  mandates: Map<string, Mandate>;
  committed: Map<string, number>;
  tr: Translator;
}

/** Receipt of a settled payment: the public order page for a checkout, otherwise the app's receipt page. */
export function receiptHrefOf(
  intent: PaymentIntent,
  session: CheckoutSession | undefined,
): string | null {
  if (intent.status !== 'settled' || !intent.receiptId) {
    return null;
  }
  return session?.orderId ? `/app/orders/${session.orderId}` : `/app/receipts/${intent.receiptId}`;
}

/** The items a payment is for: the checkout's or the quote's lines, or what its receipt context lists. */
export function itemsOf(
  intent: PaymentIntent,
  sessions: Map<string, CheckoutSession>,
  quotes: Map<string, Quote>,
): ItemLine[] {
  if (intent.sourceKind === 'checkout') {
    const s = sessions.get(intent.sourceId);
    if (s) {
      return s.lineItems.map((l) => ({
        name: l.name,
        quantity: l.quantity,
        unitPaise: l.unit_paise,
        amountPaise: l.unit_paise * l.quantity,
      }));
    }
  }
  const q = quotes.get(intent.sourceId);
  if (q) {
    return q.lineItems.map((l) => ({
      name: l.name,
      quantity: l.quantity,
      unitPaise: l.unit_paise,
      amountPaise: l.amount_paise,
    }));
  }
  const raw = (intent.receiptContext as { line_items?: unknown }).line_items;
  if (!Array.isArray(raw)) {
    return [];
  }
  return raw.flatMap((l: Record<string, unknown>) => {
    const quantity = typeof l.quantity === 'number' ? l.quantity : 1;
    const unit = typeof l.unit_paise === 'number' ? l.unit_paise : null;
    if (unit === null) {
      return [];
    }
    const name = typeof l.name === 'string' ? l.name : typeof l.sku === 'string' ? l.sku : 'Item';
    return [
      {
        name,
        quantity,
        unitPaise: unit,
        amountPaise: typeof l.amount_paise === 'number' ? l.amount_paise : unit * quantity,
      },
    ];
  });
}

/**
 * Builds approval cards from the approvals of a workspace: the payment (or refunded payment)
 * behind each, its lines and seller, the mandate it draws on and what is left of the buyer
 * agent's daily cap (PaymentIntentRepository.spentOn), times in IST.
 */
@Injectable()
export class ApprovalCards {
  constructor(
    private readonly intents: PaymentIntentRepository,
    private readonly read: AppReadModel,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  needsConfirm(a: Approval): boolean {
    return a.amountPaise > this.config.approvalThresholdPaise;
  }

  /** Cards in the page's language (tr, from @PageLanguage()); English outside a request. */
  async build(approvals: Approval[], tr: Translator = translator('en')): Promise<ApprovalCard[]> {
    const refunds = await this.read.refunds(
      approvals.filter((a) => a.kind === 'refund').map((a) => a.subjectId),
    );
    const intentIds = [
      ...approvals.filter((a) => a.kind === 'payment').map((a) => a.subjectId),
      ...[...refunds.values()].map((r) => r.intentId),
    ];
    const intents = new Map((await this.intents.findByIds(intentIds)).map((i) => [i.id, i]));
    const list = [...intents.values()];
    const [sessions, quotes, names, mandates] = await Promise.all([
      this.read.checkoutSessions(
        list.filter((i) => i.sourceKind === 'checkout').map((i) => i.sourceId),
      ),
      this.read.quotes(list.filter((i) => i.sourceKind !== 'checkout').map((i) => i.sourceId)),
      this.read.agentNames(list.flatMap((i) => [i.sellerAgentId, i.buyerAgentId])),
      this.read.mandates(list.flatMap((i) => (i.mandateId ? [i.mandateId] : []))),
    ]);
    const pendingBuyers = new Set(
      approvals
        .filter((a) => a.status === 'pending' && a.kind === 'payment')
        .flatMap((a) => {
          const i = intents.get(a.subjectId);
          return i ? [i.buyerAgentId] : [];
        }),
    );
    const committed = new Map<string, number>();
    for (const buyer of pendingBuyers) {
      committed.set(buyer, await this.intents.spentOn(buyer, this.clock.now(), null));
    }
    const ctx: Context = { intents, refunds, sessions, quotes, names, mandates, committed, tr };
    return approvals.map((a) => this.card(a, ctx));
  }

  private card(a: Approval, ctx: Context): ApprovalCard {
    const { tr } = ctx;
    const now = this.clock.now();
    const refund = a.kind === 'refund' ? ctx.refunds.get(a.subjectId) : undefined;
    const intent = ctx.intents.get(a.kind === 'payment' ? a.subjectId : (refund?.intentId ?? ''));
    const seller = intent ? (ctx.names.get(intent.sellerAgentId) ?? intent.sellerAgentId) : null;
    const buyer = intent ? (ctx.names.get(intent.buyerAgentId) ?? intent.buyerAgentId) : null;
    const mandate = intent?.mandateId ? ctx.mandates.get(intent.mandateId) : undefined;
    const committed = intent ? ctx.committed.get(intent.buyerAgentId) : undefined;
    const cap = this.config.dailyCapPaise;
    const items = intent ? itemsOf(intent, ctx.sessions, ctx.quotes) : [];
    const from = seller ?? tr.t('approvals.card.a_seller');
    const title =
      a.kind === 'recurring_charge'
        ? tr.t('approvals.card.title_autopay')
        : a.kind === 'refund'
          ? tr.t('approvals.card.title_refund', { seller: from })
          : items.length === 1
            ? tr.t('approvals.card.title_one', {
                quantity: items[0].quantity,
                item: items[0].name,
                seller: from,
              })
            : items.length > 0
              ? tr.t('approvals.card.title_items', { count: items.length, seller: from })
              : tr.t('approvals.card.title_payment', { seller: from });
    return {
      id: a.id,
      kind: a.kind,
      kindLabel: tr.t(`approvals.kind.${a.kind}`),
      title,
      summary: a.summary,
      status: a.status,
      statusLabel: tr.t(`approvals.status.${a.status}`),
      pending: a.status === 'pending',
      amountPaise: a.amountPaise,
      seller,
      buyer,
      items,
      refundReason: refund?.reason ?? null,
      originalPaymentPaise: refund && intent ? intent.amountPaise : null,
      mandate:
        a.kind === 'payment' && mandate
          ? {
              id: mandate.id,
              capPaise: mandate.perPaymentCapPaise,
              validUntil: tr.ist(mandate.validUntil),
              label:
                describedAs(mandate, ctx.names, tr) ??
                tr.t(
                  mandate.kind === 'one_time'
                    ? 'approvals.card.mandate_one_time'
                    : 'approvals.card.mandate_standing',
                ),
            }
          : null,
      dailyCap:
        a.kind === 'payment' && committed !== undefined
          ? {
              capPaise: cap,
              committedPaise: committed,
              leftPaise: Math.max(0, cap - committed),
              over: committed > cap,
            }
          : null,
      expiresAt: tr.ist(a.expiresAt),
      expiresIn:
        a.expiresAt > now
          ? tr.t('approvals.card.expires_in', { relative: tr.relative(a.expiresAt, now) })
          : tr.t('approvals.card.expired'),
      decidedAt: a.decidedAt ? tr.ist(a.decidedAt) : null,
      needsConfirm: this.needsConfirm(a),
      outcome: a.status === 'pending' ? null : this.outcome(a, intent, refund, ctx),
    };
  }

  private outcome(
    a: Approval,
    intent: PaymentIntent | undefined,
    refund: Refund | undefined,
    ctx: Context,
  ): ApprovalCard['outcome'] {
    const session =
      intent?.sourceKind === 'checkout' ? ctx.sessions.get(intent.sourceId) : undefined;
    const o = (key: string, vars?: Record<string, string>) =>
      ctx.tr.t(`approvals.outcome.${key}`, vars);
    // A reason the system recorded (a note, a decline reason) is English; other pages say it generally.
    const said = (reason: string | null | undefined, key: string) =>
      ctx.tr.lang === 'en' && reason ? reason : o(key);
    if (a.status === 'withdrawn') {
      return {
        tone: 'bad',
        heading: o('withdrawn'),
        text: said(a.note, 'withdrawn_text'),
        receiptHref: null,
      };
    }
    if (a.status === 'expired') {
      return {
        tone: 'neutral',
        heading: o('expired'),
        text: o('expired_text'),
        receiptHref: null,
      };
    }
    if (a.kind === 'refund') {
      if (a.status === 'denied') {
        return {
          tone: 'neutral',
          heading: o('refund_declined'),
          text: o('refund_declined_text'),
          receiptHref: null,
        };
      }
      if (refund?.status === 'succeeded') {
        return {
          tone: 'good',
          heading: o('refunded'),
          text: o('refunded_text'),
          receiptHref: intent?.receiptId
            ? session?.orderId
              ? `/app/orders/${session.orderId}`
              : `/app/receipts/${intent.receiptId}`
            : null,
        };
      }
      return {
        tone: 'bad',
        heading: o('refund_failed'),
        text: said(refund?.failureReason, 'refund_failed_text'),
        receiptHref: null,
      };
    }
    if (a.status === 'denied') {
      return {
        tone: 'neutral',
        heading: o('declined'),
        text: o('declined_text'),
        receiptHref: null,
      };
    }
    if (intent?.status === 'settled') {
      return {
        tone: 'good',
        heading: o('paid'),
        text: intent.settledAt
          ? o('paid_text_at', { when: ctx.tr.ist(intent.settledAt) })
          : o('paid_text'),
        receiptHref: receiptHrefOf(intent, session),
      };
    }
    return {
      tone: 'bad',
      heading: o('not_paid'),
      text: said(intent?.declineReason ?? a.note, 'not_paid_text'),
      receiptHref: null,
    };
  }
}
