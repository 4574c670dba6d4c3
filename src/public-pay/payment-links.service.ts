import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';

import { AuditLog } from '../common/audit';
import type { AgentPrincipal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { AfterCommit, Eventually, Tx } from '../database/tx';
import { gatewayErrors } from '../gateway/gateway.errors';
import type { PaymentIntent } from '../payments/entities/payment-intent.entity';
import { partyRefusalOf } from '../payments/party-gate';
import { PaymentIntentRepository } from '../payments/payment-intent.repository';
import { PaymentsService } from '../payments/payments.service';
import type { Quote } from '../quotes/quote.entity';
import { effectiveStatus, whyNotPayable } from '../quotes/quote.state';
import { quoteErrors } from '../quotes/quotes.errors';
import { QuotesService } from '../quotes/quotes.service';
import { unguessableId } from '../quotes/unguessable-id';
import { GatewayRepository } from '../rails/gateway/gateway.repository';
import { GatewayClient, GatewayError } from '../rails/gateway/gateway-client';
import type { GatewayPayment, GatewayPaymentLink } from '../rails/gateway/gateway-client.types';
import { GATEWAY_CLIENT } from '../rails/gateway/gateway-rail';
import { verifyPaymentLinkSignature } from '../rails/gateway/gateway-signatures';
import { PaymentLinkResponse } from './dto/payment-link.response';
import { HostedCheckout } from './hosted-checkout.entity';
import { statusUrlOf } from './hosted-checkout.mapper';
import { HostedCheckoutRepository } from './hosted-checkout.repository';
import { assertMove, effectiveCheckoutStatus, isLive } from './hosted-checkout.state';
import { paymentLinkErrors } from './payment-links.errors';
import { PublicPayService } from './public-pay.service';

/** The query the gateway adds to the link's callback_url when the payer has paid. */
export interface LinkCallbackFields {
  gateway_payment_id: string;
  gateway_payment_link_id: string;
  gateway_payment_link_reference_id: string;
  gateway_payment_link_status: string;
  gateway_signature: string;
}

/** Idempotency-Keys of our calls to the gateway for a link (one create, one cancel per link). */
export const paymentLinkKeys = {
  create: (linkId: string) => `plink-${linkId}`,
  cancel: (linkId: string) => `plink-cancel-${linkId}`,
};

/**
 * Gateway payment links for quotes (docs/gateway.md "Payment links"): the quote's seller asks for a link,
 * sends it to the buyer's person, who pays it on the gateway's page; the gateway's webhook then
 * settles the quote exactly like a hosted-page payment.
 *
 * A link is a hosted checkout of channel `link` (id `plk_…`, hosted-checkout.state.ts), whose
 * gateway order is the link's own order (recorded in gateway_orders as kind `hosted`). So its
 * capture takes the hosted page's path unchanged: GatewayWebhooksService → the order →
 * PublicPayService.settleCaptured → QuotesService.payOnPage (source kind `hosted`, authority the
 * person on the page: paying the link is the approval; the buyer's daily cap still applies; signed
 * receipt; intent.settled; quote paid). A capture the quote can no longer take (paid on the page,
 * canceled, refused by the rules) is refunded in full automatically (docs/gateway.md "Payment links").
 *
 * Creating one: under the quote's lock, the live link of the quote is returned if there is one
 * (at most one per quote: a partial unique index), else a row is inserted and committed; the
 * gateway is called after commit with no transaction open (Idempotency-Key and reference_id from
 * the row's id, so a retry gets the same link), and a second short transaction records the link.
 */
@Injectable()
export class PaymentLinksService implements OnModuleInit {
  private readonly logger = new Logger(PaymentLinksService.name);

  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly checkouts: HostedCheckoutRepository,
    private readonly quotes: QuotesService,
    private readonly payments: PaymentsService,
    private readonly intents: PaymentIntentRepository,
    private readonly gatewayStore: GatewayRepository,
    private readonly publicPay: PublicPayService,
    @Inject(GATEWAY_CLIENT) private readonly gateway: GatewayClient | null,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.quotes.onCanceled((quote) => this.onQuoteCanceled(quote));
    this.quotes.onPaid((quote) => this.onQuotePaid(quote));
  }

  /**
   * POST /v1/pay/quotes/{id}/payment-link: the quote's live link, or a new one. 404 for anyone
   * but the quote's seller; 409 payment_links_need_gateway on the sandbox rail; 409 with the
   * quote's reason when it cannot be paid, or payment_refused when the buyer's rules would refuse.
   */
  async create(seller: AgentPrincipal, quoteId: string): Promise<Eventually<PaymentLinkResponse>> {
    return this.tx.run(async () => {
      const quote = await this.quotes.lockQuote(quoteId);
      if (!quote || quote.sellerAgentId !== seller.id) {
        throw quoteErrors.notFound(quoteId);
      }
      if (!this.gateway) {
        throw paymentLinkErrors.needGateway();
      }
      const now = this.clock.now();
      const quoteStatus = effectiveStatus(quote, now);
      const live = await this.checkouts.lockLive(quote.id, 'link');
      if (live && isLive(effectiveCheckoutStatus(live, quoteStatus, now))) {
        return this.answer(live, quote);
      }
      const blocked = whyNotPayable(quoteStatus);
      if (blocked) {
        throw quoteErrors.notPayable(blocked.code, blocked.reason);
      }
      // pay()'s lifecycle gate asked beforehand (docs/architecture.md "Party lifecycle").
      const party = await partyRefusalOf(this.tx.manager, quote.buyerAgentId, quote.sellerAgentId);
      if (party) {
        throw party;
      }
      const decline = await this.payments.previewDecline({
        mandateId: null,
        authorisedBy: 'person_on_page',
        buyerAgentId: quote.buyerAgentId,
        sellerAgentId: quote.sellerAgentId,
        amountPaise: quote.amountPaise,
      });
      if (decline) {
        throw paymentLinkErrors.paymentRefused();
      }
      if (live) {
        // Stored live but its time ran out (its expiry is the quote's, so only at the boundary).
        assertMove(live.status, 'expired');
        await this.checkouts.update(live.id, { status: 'expired', updatedAt: now });
      }
      const link = Object.assign(new HostedCheckout(), {
        id: unguessableId('plk'),
        quoteId: quote.id,
        channel: 'link' as const,
        status: 'created' as const,
        amountPaise: quote.amountPaise,
        currency: 'INR' as const,
        rail: 'gateway',
        intentId: null,
        attempts: 0,
        gatewayOrderId: null,
        gatewayLinkId: null,
        linkUrl: null,
        failureCode: null,
        failureReason: null,
        expiresAt: quote.expiresAt,
        createdAt: now,
        updatedAt: now,
        completedAt: null,
      });
      await this.checkouts.insert(link);
      await this.audit.record(
        quote.sellerWorkspaceId,
        { type: 'agent', id: seller.id },
        'payment_link.created',
        link.id,
        { quote_id: quote.id },
      );
      return this.answer(link, quote);
    });
  }

  /** GET /v1/pay/quotes/{id}/payment-link: the quote's latest link, for its seller. */
  async get(seller: AgentPrincipal, quoteId: string): Promise<PaymentLinkResponse> {
    const quote = await this.quotes.findForPage(quoteId);
    if (!quote || quote.sellerAgentId !== seller.id) {
      throw quoteErrors.notFound(quoteId);
    }
    const link = await this.checkouts.latest(quote.id, 'link');
    if (!link) {
      throw paymentLinkErrors.notFound();
    }
    return this.respond(link, quote);
  }

  /**
   * The gateway's redirect of the payer back to us ({app_url}/pay/<quote_id>/status?checkout=<plk_…>
   * plus the gateway's fields): settles the link's payment at once, like the hosted page's return
   * route, so the person sees it paid even before the webhook. The signature
   * HMAC-SHA256(link_id|reference_id|status|payment_id, key secret) must verify (constant time)
   * for the link we stored and our reference; then, with no transaction open, the payment is
   * fetched from the gateway and must be captured on the link's order for its amount; only then
   * it settles (PublicPayService.settleCaptured: idempotent, so the webhook after it changes
   * nothing). Anything else does nothing and answers false: the webhook settles the payment.
   */
  async settleFromCallback(
    quoteId: string,
    linkId: string,
    f: LinkCallbackFields,
  ): Promise<boolean> {
    const keys = this.config.gateway;
    const gateway = this.gateway;
    if (!keys || !gateway) {
      return false;
    }
    const link = await this.checkouts.find(linkId);
    if (
      !link ||
      link.channel !== 'link' ||
      link.quoteId !== quoteId ||
      !link.gatewayLinkId ||
      f.gateway_payment_link_id !== link.gatewayLinkId ||
      f.gateway_payment_link_reference_id !== link.id ||
      f.gateway_payment_link_status !== 'paid' ||
      !verifyPaymentLinkSignature(
        {
          linkId: link.gatewayLinkId,
          referenceId: link.id,
          status: 'paid',
          paymentId: f.gateway_payment_id,
        },
        f.gateway_signature,
        keys.keySecret.reveal(),
      )
    ) {
      return false;
    }
    let payment: GatewayPayment;
    try {
      payment = await gateway.getPayment(f.gateway_payment_id);
    } catch (err) {
      this.logger.warn({ link_id: link.id, err: (err as Error).message }, 'link callback payment');
      return false;
    }
    if (
      payment.order_id !== link.gatewayOrderId ||
      payment.amount !== link.amountPaise ||
      payment.currency !== 'INR' ||
      payment.status !== 'captured'
    ) {
      return false;
    }
    await this.tx.run(() => this.publicPay.settleCaptured(link.id, payment));
    return true;
  }

  /** The answer; a link the gateway has not created yet gets it after commit first. */
  private async answer(
    link: HostedCheckout,
    quote: Quote,
  ): Promise<Eventually<PaymentLinkResponse>> {
    if (link.gatewayLinkId || link.status !== 'created') {
      return this.respond(link, quote);
    }
    const { id, amountPaise, expiresAt } = link;
    const quoteId = quote.id;
    const description = describeQuote(quote);
    return new AfterCommit(async () => {
      await this.openAtGateway({ id, quoteId, amountPaise, expiresAt, description });
      return this.read(quoteId, id);
    });
  }

  private async read(quoteId: string, linkId: string): Promise<PaymentLinkResponse> {
    const quote = (await this.quotes.findForPage(quoteId)) as Quote;
    const link = (await this.checkouts.find(linkId)) as HostedCheckout;
    return this.respond(link, quote);
  }

  /**
   * Creates the gateway's link (no transaction open), then records it in a short transaction
   * (quote → link locked, as everywhere). The same Idempotency-Key and reference_id on every
   * try, so a retry after a lost answer gets the same link. A 4xx from the gateway ends this row
   * (expired, payment_link_refused) so the next call starts afresh; no answer is 503.
   */
  private async openAtGateway(l: {
    id: string;
    quoteId: string;
    amountPaise: number;
    expiresAt: Date;
    description: string;
  }): Promise<void> {
    const gateway = this.gateway as GatewayClient;
    let link: GatewayPaymentLink;
    try {
      link = await gateway.createPaymentLink(
        {
          amount: l.amountPaise,
          currency: 'INR',
          reference_id: l.id,
          description: l.description,
          callback_url: statusUrlOf(this.config.appUrl, l.quoteId, l.id),
          callback_method: 'get',
          notes: { quote_id: l.quoteId, checkout_id: l.id },
          expire_by: Math.floor(l.expiresAt.getTime() / 1000),
        },
        paymentLinkKeys.create(l.id),
      );
    } catch (err) {
      if (err instanceof GatewayError && !err.retryable) {
        this.logger.warn({ link_id: l.id, err: err.message }, 'gateway refused the payment link');
        await this.abandon(l.id, l.quoteId, err.description);
        throw paymentLinkErrors.gatewayRefused(err.description);
      }
      this.logger.warn({ link_id: l.id, err: (err as Error).message }, 'gateway payment link');
      throw gatewayErrors.unavailable();
    }
    if (link.amount !== l.amountPaise || link.reference_id !== l.id || link.currency !== 'INR') {
      // Never record a link that does not pay exactly this quote.
      this.logger.error({ link_id: l.id, gateway_link_id: link.id }, 'payment link mismatch');
      throw gatewayErrors.unavailable();
    }
    await this.tx.run(async () => {
      const quote = await this.quotes.lockQuote(l.quoteId);
      const row = quote ? await this.checkouts.lock(l.id) : null;
      if (!quote || !row) {
        return;
      }
      await this.gatewayStore.recordOrder(link.order_id, 'hosted', l.id, l.amountPaise);
      await this.checkouts.setGatewayLink(l.id, {
        linkId: link.id,
        url: link.short_url,
        orderId: link.order_id,
      });
      if (quote.status === 'canceled') {
        // Canceled while the gateway was creating it: the cancel found no link to close.
        this.cancelAfterCommit(link.id);
      }
    });
  }

  /** The gateway refused the link: this row will never have one (expired, with why). */
  private async abandon(id: string, quoteId: string, why: string): Promise<void> {
    await this.tx.run(async () => {
      const quote = await this.quotes.lockQuote(quoteId);
      const row = quote ? await this.checkouts.lock(id) : null;
      if (!row || row.status !== 'created' || row.gatewayLinkId) {
        return;
      }
      const now = this.clock.now();
      assertMove(row.status, 'expired');
      await this.checkouts.update(id, {
        status: 'expired',
        failureCode: 'payment_link_refused',
        failureReason: `The gateway refused the payment link: ${why}`,
        updatedAt: now,
      });
    });
  }

  /**
   * QuotesService.cancel's hook (its transaction, quote locked): the live link is canceled at the
   * gateway after commit, so the payer can no longer pay it. Its row needs no write: a link of a
   * canceled quote reads expired (effectiveCheckoutStatus).
   */
  private async onQuoteCanceled(quote: Quote): Promise<void> {
    const link = await this.checkouts.latest(quote.id, 'link');
    if (link?.status === 'created' && link.gatewayLinkId) {
      this.cancelAfterCommit(link.gatewayLinkId);
    }
  }

  /**
   * The quote was paid some other way (the buyer agent, the hosted page) while its payment link was
   * still open: the link is canceled at the gateway after commit, so the person cannot pay twice.
   * A link that paid it is no longer `created` and is left alone.
   */
  private async onQuotePaid(quote: Quote): Promise<void> {
    await this.onQuoteCanceled(quote);
  }

  private cancelAfterCommit(gatewayLinkId: string): void {
    const gateway = this.gateway;
    if (!gateway) {
      return;
    }
    this.tx.afterCommit(async () => {
      try {
        await gateway.cancelPaymentLink(gatewayLinkId, paymentLinkKeys.cancel(gatewayLinkId));
      } catch (err) {
        // Already paid or expired at the gateway, or no answer: a payment that still arrives is
        // answered unmatched by settleCaptured (the quote is canceled) and kept for a refund.
        this.logger.warn(
          { gateway_link_id: gatewayLinkId, err: (err as Error).message },
          'cancel payment link',
        );
      }
    });
  }

  private async respond(link: HostedCheckout, quote: Quote): Promise<PaymentLinkResponse> {
    const now = this.clock.now();
    const quoteStatus = effectiveStatus(quote, now);
    const status = effectiveCheckoutStatus(link, quoteStatus, now);
    const intent: PaymentIntent | null =
      link.intentId && !isLive(status) ? await this.intents.get(link.intentId) : null;
    const paid = status === 'paid' && intent !== null;
    // A link still stored live whose quote went away reads expired, with the quote's reason.
    const derived = status === 'expired' && link.status === 'created';
    const why = derived
      ? (whyNotPayable(quoteStatus) ?? {
          code: 'payment_link_expired',
          reason: 'The payment link expired before it was paid.',
        })
      : null;
    return {
      id: link.id,
      object: 'payment_link',
      quote_id: link.quoteId,
      status,
      amount_paise: link.amountPaise,
      currency: 'INR',
      url: link.linkUrl,
      gateway_link_id: link.gatewayLinkId,
      gateway_order_id: link.gatewayOrderId,
      intent_id: link.intentId,
      payment_reference: paid ? intent.railReference : null,
      receipt_id: paid ? intent.receiptId : null,
      failure_code: why?.code ?? link.failureCode,
      failure_reason: why?.reason ?? link.failureReason,
      expires_at: link.expiresAt.toISOString(),
      created_at: link.createdAt.toISOString(),
      updated_at: link.updatedAt.toISOString(),
      completed_at: link.completedAt?.toISOString() ?? null,
    };
  }
}

/** The link's description on the gateway's page: seller and items. */
function describeQuote(quote: Quote): string {
  const items = quote.lineItems
    .map((li) => (li.quantity > 1 ? `${li.quantity} × ${li.name}` : li.name))
    .join(', ');
  const text = `${quote.sellerName}: ${items}`;
  return text.length > 500 ? `${text.slice(0, 499)}…` : text;
}
