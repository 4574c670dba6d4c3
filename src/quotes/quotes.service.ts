import { Inject, Injectable, OnModuleInit } from '@nestjs/common';

import { AgentRepository } from '../accounts/agent.repository';
import { canBuy, canSell } from '../accounts/entities/agent.entity';
import {
  CLOSED_BUYER,
  CLOSED_SELLER,
  EndedForClosure,
  PartyClosure,
} from '../accounts/party-closure.service';
import { AuditActor, AuditLog } from '../common/audit';
import type { AgentPrincipal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { formatRupees } from '../common/money';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { AfterCommit, Eventually, Tx } from '../database/tx';
import { MandateRepository } from '../mandates/mandate.repository';
import type { PaymentIntent } from '../payments/entities/payment-intent.entity';
import { partyRefusalOf } from '../payments/party-gate';
import { AnswerStore, PaymentAttempt } from '../payments/payment-attempt';
import { PaymentIntentRepository } from '../payments/payment-intent.repository';
import { PaymentSources } from '../payments/payment-sources';
import {
  PayAuthority,
  PaymentsService,
  PaymentStarted,
  PayMode,
} from '../payments/payments.service';
import { WaitingPayments } from '../payments/waiting-payments.service';
import { PAYMENT_RAIL, PaymentRail } from '../rails/payment-rail';
import { SellerService } from '../seller/seller.service';
import { PayQuoteResponse, PublicQuoteView, QuoteResponse } from './dto/quote.response';
import { Quote, QuoteLineItem } from './quote.entity';
import {
  payUrlOf,
  toIntentOutcome,
  toIntentOutcomeOf,
  toPublicQuoteView,
  toQuoteResponse,
} from './quote.mapper';
import { QuoteParty, QuoteRepository } from './quote.repository';
import {
  effectiveStatus,
  FREE_FORM_QUOTE_TTL,
  OFFER_QUOTE_TTL_SECONDS,
  whyNotCancelable,
  whyNotPayable,
} from './quote.state';
import { quoteErrors } from './quotes.errors';
import { unguessableId } from './unguessable-id';

export interface FreeFormQuoteInput {
  buyerAgentId: string;
  category: string;
  items: { name: string; unitPaise: number; quantity?: number }[];
  expiresInSeconds?: number;
}

export interface PayQuoteInput {
  /** The agent the quote is addressed to; anyone else gets quote_not_found. */
  buyerAgentId: string;
  quoteId: string;
  mandateId: string;
  /** The request's Idempotency-Key store (null without a key): keeps the payment on the key. */
  keyAnswer?: AnswerStore | null;
}

/**
 * Quotes: a price addressed to one buyer agent, made from a seller's published offer or as a
 * free-form item list by the seller. Paying one runs the shared pipeline (PaymentsService.pay)
 * through `payThroughPipeline`, the one place that does it: `payAsBuyer` (agent route, under a
 * mandate, source {kind: 'quote'}) and `payOnPage` (hosted payment page, authorised by the person
 * on it, source {kind: 'hosted'}). Lock order: quote → (hosted checkout) → (pipeline) buyer agent →
 * mandate → intent.
 */
/** Who cancels a closed party's quotes (PartyClosure). */
const LIFECYCLE_ACTOR: AuditActor = { type: 'system', id: 'lifecycle' };

@Injectable()
export class QuotesService implements OnModuleInit {
  private readonly canceledHooks: ((quote: Quote) => Promise<void>)[] = [];
  private readonly paidHooks: ((quote: Quote, intent: PaymentIntent) => Promise<void>)[] = [];

  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly quotes: QuoteRepository,
    private readonly agents: AgentRepository,
    private readonly mandates: MandateRepository,
    private readonly sellers: SellerService,
    private readonly payments: PaymentsService,
    private readonly intents: PaymentIntentRepository,
    private readonly waiting: WaitingPayments,
    private readonly sources: PaymentSources,
    @Inject(PAYMENT_RAIL) private readonly rail: PaymentRail,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly closure: PartyClosure,
  ) {}

  /** An enabled agent by id (any workspace), as a party of a quote. */
  private async partyOf(id: string): Promise<QuoteParty | null> {
    const agent = await this.agents.findEnabled(id);
    return agent
      ? { id: agent.id, workspaceId: agent.workspaceId, name: agent.name, role: agent.role }
      : null;
  }

  onModuleInit(): void {
    this.closure.register('quotes', 20, (w) => this.cancelForClosure(w.workspaceId, w.now));
    this.sources.register('quote', {
      lock: (quoteId, opts) => this.quotes.lock(quoteId, opts),
      onSettled: (intent) => this.onIntentSettled(intent),
      onDeclined: (intent) => this.onIntentDeclined(intent),
    });
  }

  /**
   * Work to do when a quote is canceled, in cancel's transaction under the quote's lock (the
   * payment links of src/public-pay cancel the gateway's link after commit, docs/gateway.md "Payment links").
   */
  onCanceled(hook: (quote: Quote) => Promise<void>): void {
    this.canceledHooks.push(hook);
  }

  /**
   * Work to do when a quote is paid, in the settling transaction under the quote's lock (a live
   * payment link of the quote, paid some other way, is canceled at the gateway after commit).
   */
  onPaid(hook: (quote: Quote, intent: PaymentIntent) => Promise<void>): void {
    this.paidHooks.push(hook);
  }

  /** A buyer asks a listed seller for the published price of one sku: quantity 1, valid 15 minutes. */
  async createFromOffer(
    buyer: AgentPrincipal,
    sellerAgentId: string,
    sku: string,
  ): Promise<QuoteResponse> {
    if (!canBuy(buyer.role)) {
      throw quoteErrors.wrongRole('buyer');
    }
    return this.tx.run(async () => {
      const seller = await this.sellers.findListedSeller(sellerAgentId);
      if (!seller) {
        throw quoteErrors.sellerNotFound(sellerAgentId);
      }
      if (seller.agentId === buyer.id) {
        throw quoteErrors.buyerIsSeller('$.sku');
      }
      const offer = await this.sellers.findActiveOffer(seller.agentId, sku);
      if (!offer) {
        throw quoteErrors.offerNotFound(sku);
      }
      // No quote for or from a party that may not transact (docs/architecture.md "Party lifecycle").
      const party = await partyRefusalOf(this.tx.manager, buyer.id, seller.agentId);
      if (party) {
        throw party;
      }
      const now = this.clock.now();
      const quote = this.build({
        now,
        ttlSeconds: OFFER_QUOTE_TTL_SECONDS,
        seller: { id: seller.agentId, workspaceId: seller.workspaceId, name: seller.name },
        buyer: { id: buyer.id, workspaceId: buyer.workspaceId },
        origin: 'offer',
        offerId: offer.id,
        category: offer.category,
        lineItems: [
          {
            name: offer.name,
            quantity: 1,
            unit_paise: offer.unitPaise,
            amount_paise: offer.unitPaise,
            sku: offer.sku,
          },
        ],
      });
      await this.quotes.insert(quote);
      await this.audit.record(
        buyer.workspaceId,
        { type: 'agent', id: buyer.id },
        'quote.requested',
        quote.id,
        {
          seller_agent_id: seller.agentId,
          sku,
        },
      );
      return this.respond(quote, now);
    });
  }

  /** A seller quotes its own item list to one buyer agent (any workspace). */
  async createFreeForm(seller: AgentPrincipal, input: FreeFormQuoteInput): Promise<QuoteResponse> {
    if (!canSell(seller.role)) {
      throw quoteErrors.wrongRole('seller');
    }
    return this.tx.run(async () => {
      if (input.buyerAgentId === seller.id) {
        throw quoteErrors.buyerIsSeller('$.buyer_agent_id');
      }
      const [buyer, self] = await Promise.all([
        this.partyOf(input.buyerAgentId),
        this.partyOf(seller.id),
      ]);
      if (!buyer || !canBuy(buyer.role)) {
        throw quoteErrors.buyerNotFound(input.buyerAgentId);
      }
      const party = await partyRefusalOf(this.tx.manager, buyer.id, seller.id);
      if (party) {
        throw party;
      }
      const lineItems: QuoteLineItem[] = input.items.map((it) => {
        const quantity = it.quantity ?? 1;
        return {
          name: it.name,
          quantity,
          unit_paise: it.unitPaise,
          amount_paise: it.unitPaise * quantity,
        };
      });
      const now = this.clock.now();
      const quote = this.build({
        now,
        ttlSeconds: input.expiresInSeconds ?? FREE_FORM_QUOTE_TTL.default,
        seller: { id: seller.id, workspaceId: seller.workspaceId, name: self?.name ?? seller.id },
        buyer: { id: buyer.id, workspaceId: buyer.workspaceId },
        origin: 'seller',
        offerId: null,
        category: input.category,
        lineItems,
      });
      await this.quotes.insert(quote);
      await this.audit.record(
        seller.workspaceId,
        { type: 'agent', id: seller.id },
        'quote.created',
        quote.id,
        {
          buyer_agent_id: buyer.id,
          amount_paise: quote.amountPaise,
        },
      );
      return this.respond(quote, now);
    });
  }

  /** The quote for its seller or its addressed buyer; anyone else gets quote_not_found. */
  async getForParty(agentId: string, quoteId: string): Promise<QuoteResponse> {
    const quote = await this.quotes.find(quoteId);
    if (!quote || (quote.sellerAgentId !== agentId && quote.buyerAgentId !== agentId)) {
      throw quoteErrors.notFound(quoteId);
    }
    return this.respond(quote, this.clock.now());
  }

  /** The seller withdraws an open quote; a payment waiting for a person is declined with it. */
  async cancel(seller: AgentPrincipal, quoteId: string): Promise<QuoteResponse> {
    return this.tx.run(async () => {
      const quote = await this.quotes.lock(quoteId);
      if (!quote || quote.sellerAgentId !== seller.id) {
        throw quoteErrors.notFound(quoteId);
      }
      const now = this.clock.now();
      const blocked = whyNotCancelable(effectiveStatus(quote, now));
      if (blocked) {
        throw quoteErrors.notPayable(blocked.code, blocked.reason);
      }
      await this.cancelLocked(quote, now, { type: 'agent', id: seller.id });
      return this.respond(quote, now);
    });
  }

  /** Cancels a quote the caller holds locked and may cancel (whyNotCancelable is null). */
  private async cancelLocked(
    quote: Quote,
    now: Date,
    actor: AuditActor,
    reason?: string,
  ): Promise<void> {
    if (quote.status === 'pending_approval' && quote.intentId) {
      // Lock order quote → intent, as the pipeline expects from a source.
      await this.waiting.cancelPending(quote.intentId, reason);
    }
    Object.assign(quote, { status: 'canceled', intentId: null, canceledAt: now, updatedAt: now });
    await this.quotes.update(quote.id, {
      status: 'canceled',
      intentId: null,
      canceledAt: now,
      updatedAt: now,
    });
    for (const hook of this.canceledHooks) {
      await hook(quote);
    }
    await this.audit.record(
      quote.sellerWorkspaceId,
      actor,
      'quote.canceled',
      quote.id,
      reason ? { reason } : {},
    );
  }

  /**
   * A workspace closes (PartyClosure, docs/architecture.md "Party lifecycle"): its open quotes, as
   * seller and as buyer, are canceled with their pay links (the canceled hooks), each under its
   * lock; the other side is told.
   */
  private async cancelForClosure(workspaceId: string, now: Date): Promise<EndedForClosure[]> {
    const ended: EndedForClosure[] = [];
    for (const id of await this.quotes.openOfWorkspace(workspaceId)) {
      const quote = await this.quotes.lock(id);
      if (!quote || whyNotCancelable(effectiveStatus(quote, now))) {
        continue;
      }
      const sellerClosed = quote.sellerWorkspaceId === workspaceId;
      const why = sellerClosed ? CLOSED_SELLER : CLOSED_BUYER;
      await this.cancelLocked(quote, now, LIFECYCLE_ACTOR, why.reason);
      ended.push({
        kind: 'quote',
        id: quote.id,
        counterparty: sellerClosed
          ? { workspaceId: quote.buyerWorkspaceId, agentId: quote.buyerAgentId }
          : { workspaceId: quote.sellerWorkspaceId, agentId: quote.sellerAgentId },
        words: `${why.reason}: quote ${quote.id} (${formatRupees(quote.amountPaise)}) is canceled and cannot be paid.`,
      });
    }
    return ended;
  }

  /**
   * Pays a quote for its addressed buyer under the buyer's mandate, through the shared pipeline.
   * Declines (buyer rules, rail failure) are answers, not errors: the intent is recorded as
   * declined/failed and the quote stays open, so the buyer may retry with another mandate. A
   * payment that goes to the rail leaves the quote `processing` when this transaction commits;
   * the answer (AfterCommit) is read again once the rail has answered and the pipeline's second
   * transaction moved the quote (paid, or open again).
   */
  async payAsBuyer(input: PayQuoteInput): Promise<Eventually<PayQuoteResponse>> {
    return this.tx.run(async () => {
      const quote = await this.quotes.lock(input.quoteId);
      if (!quote || quote.buyerAgentId !== input.buyerAgentId) {
        throw quoteErrors.notFound(input.quoteId);
      }
      // A retry that took the key over from a run that died after its first commit: that run's
      // payment is this request's, and its state is the answer (never quote_already_paid).
      const resumed = (await input.keyAnswer?.payment?.resumed) ?? null;
      if (resumed !== null) {
        return this.resumePayment(quote, resumed, input.keyAnswer ?? null);
      }
      const blocked = whyNotPayable(effectiveStatus(quote, this.clock.now()));
      if (blocked) {
        throw quoteErrors.notPayable(blocked.code, blocked.reason);
      }
      if (!(await this.mandates.belongsTo(input.mandateId, input.buyerAgentId))) {
        throw quoteErrors.mandateNotFound(input.mandateId);
      }
      const outcome = await this.payThroughPipeline(
        quote,
        { mandateId: input.mandateId },
        PaymentAttempt.start(
          { kind: 'quote', id: quote.id },
          input.keyAnswer ? { store: input.keyAnswer } : undefined,
        ),
        { type: 'agent', id: quote.buyerAgentId },
        {},
      );
      if (outcome.status === 'processing') {
        const intentId = outcome.intent.id;
        return new AfterCommit(() => this.readPayment(quote.id, intentId, input.keyAnswer ?? null));
      }
      return { quote: this.respond(quote, this.clock.now()), intent: toIntentOutcome(outcome) };
    });
  }

  /**
   * The answer of a quote pay retried after its first run died between the payment's two
   * transactions (the app, or Postgres under it: docs/security.md "Idempotency"), that run's intent
   * `intentId` being this request's payment (its Idempotency-Key names it). Nothing is paid again:
   * the quote and that intent as they stand are the answer, the same body the first run would have
   * given. A payment still on the rail is asked about again as the reconciler would (idempotent per
   * intent) and the answer read once it is recorded. Caller holds the quote lock.
   */
  private async resumePayment(
    quote: Quote,
    intentId: string,
    keyAnswer: AnswerStore | null,
  ): Promise<Eventually<PayQuoteResponse>> {
    const intent = await this.intents.get(intentId);
    if (intent.status === 'processing') {
      return new AfterCommit(async () => {
        await this.payments.debitOnRail(PaymentAttempt.resume(intent), 'reconcile');
        return this.readPayment(quote.id, intentId, keyAnswer);
      });
    }
    return { quote: this.respond(quote, this.clock.now()), intent: toIntentOutcomeOf(intent) };
  }

  /**
   * Pays a quote from the hosted payment page (src/public-pay): the same pipeline and the same
   * quote bookkeeping as payAsBuyer, but the authority is the person on the page, so no mandate is
   * drawn and no separate approval is asked (their act on the page is the approval); the buyer
   * agent's rules that need no mandate (its daily cap) still apply. The source is the hosted
   * checkout, whose attempt (PaymentAttempt.start) the caller made. Caller holds the quote lock,
   * then the checkout lock (quote → hosted checkout → buyer agent → intent), and has checked that
   * the quote is payable.
   */
  payOnPage<Row>(
    quote: Quote,
    attempt: PaymentAttempt<Row>,
    opts: { mode?: PayMode; receiptExtra?: Record<string, unknown> } = {},
  ): Promise<PaymentStarted> {
    const hostedCheckoutId = attempt.source?.id;
    if (attempt.source?.kind !== 'hosted') {
      throw new Error('payOnPage pays a hosted checkout');
    }
    return this.payThroughPipeline(
      quote,
      { mandateId: null, authorisedBy: 'person_on_page' },
      attempt,
      { type: 'system', id: 'pay_page' },
      { hosted_checkout_id: hostedCheckoutId, ...opts.receiptExtra },
      opts.mode,
    );
  }

  /** The quote by id for the hosted payment page: the unguessable id is the capability. */
  findForPage(quoteId: string): Promise<Quote | null> {
    return this.quotes.find(quoteId);
  }

  /**
   * The quote's part of the public view (payable as far as its status goes). The hosted payment
   * page's full view, with the buyer's rules and the checkout, is PublicPayService.getView.
   */
  async getPublicView(quoteId: string): Promise<PublicQuoteView> {
    const quote = await this.quotes.find(quoteId);
    if (!quote) {
      throw quoteErrors.notFound(quoteId);
    }
    return this.publicView(quote, this.clock.now());
  }

  /** toPublicQuoteView with this service's rail, mode and app URL. */
  async publicView(quote: Quote, now: Date): Promise<PublicQuoteView> {
    return toPublicQuoteView(quote, now, {
      buyerName: await this.buyerName(quote),
      rail: this.rail.name,
      mode: this.config.mode,
      appUrl: this.config.appUrl,
    });
  }

  /**
   * Locks a quote row (FOR NO KEY UPDATE) for a payment source that wraps a quote (hosted
   * checkout): the quote comes first in the lock order, as in payAsBuyer and cancel.
   */
  lockQuote(quoteId: string, opts: { skipLocked?: boolean } = {}): Promise<Quote | null> {
    return this.quotes.lock(quoteId, opts);
  }

  /** The name of the buyer agent a quote is addressed to, as the hosted page shows it. */
  async buyerName(quote: Quote): Promise<string> {
    return (await this.partyOf(quote.buyerAgentId))?.name ?? 'the buyer';
  }

  /** `{app_url}/pay/<quote_id>`: the link a seller sends so the buyer's person can pay. */
  payUrl(quoteId: string): string {
    return payUrlOf(this.config.appUrl, quoteId);
  }

  /** Both quote payment paths: the pipeline, then the quote's state and audit. Caller holds the quote lock. */
  private async payThroughPipeline<Row>(
    quote: Quote,
    authority: PayAuthority,
    attempt: PaymentAttempt<Row>,
    actor: AuditActor,
    receiptExtra: Record<string, unknown>,
    mode?: PayMode,
  ): Promise<PaymentStarted> {
    const outcome = await this.payments.pay(
      attempt,
      {
        buyerAgentId: quote.buyerAgentId,
        sellerAgentId: quote.sellerAgentId,
        amountPaise: quote.amountPaise,
        tokenId: null,
        description: describe(quote),
        receiptContext: {
          quote_id: quote.id,
          category: quote.category,
          line_items: quote.lineItems,
          ...receiptExtra,
        },
        ...authority,
      },
      mode,
    );
    const now = this.clock.now();
    if (outcome.status !== 'declined') {
      const changes = {
        status:
          outcome.status === 'processing' ? ('processing' as const) : ('pending_approval' as const),
        intentId: outcome.intent.id,
        updatedAt: now,
      };
      Object.assign(quote, changes);
      await this.quotes.update(quote.id, changes);
    }
    await this.audit.record(quote.buyerWorkspaceId, actor, 'quote.pay', quote.id, {
      intent_id: outcome.intent.id,
      outcome: outcome.status,
      ...(authority.mandateId === null ? { authorised_by: authority.authorisedBy } : {}),
    });
    return outcome;
  }

  /** A quote payment's answer as the database holds it now (after the payment's second phase). */
  /**
   * The quote and the intent as they stand once the request's rail call is over. An intent still
   * `processing` (no definite answer from the rail) is not the payment's end: the key is told
   * (`unfinished`), so that answer is not stored on it and a retry answers the payment's state then
   * (docs/security.md "A retry after a 503 or a crash").
   */
  private readPayment(
    quoteId: string,
    intentId: string,
    keyAnswer: AnswerStore | null,
  ): Promise<PayQuoteResponse> {
    return this.tx.run(async () => {
      const quote = (await this.quotes.find(quoteId)) as Quote;
      const intent = await this.intents.get(intentId);
      if (intent.status === 'processing') {
        keyAnswer?.payment?.unfinished();
      }
      return { quote: this.respond(quote, this.clock.now()), intent: toIntentOutcomeOf(intent) };
    });
  }

  private respond(quote: Quote, now: Date): QuoteResponse {
    return toQuoteResponse(quote, now, this.config.appUrl);
  }

  /**
   * A payment that waited for a person settled: the quote it pays becomes paid. Found by intent
   * id, so a hosted-page source can forward its own onSettled here. Caller holds the quote lock.
   */
  async onIntentSettled(intent: PaymentIntent): Promise<void> {
    const quote = await this.quotes.findByIntent(intent.id);
    if (!quote || (quote.status !== 'pending_approval' && quote.status !== 'processing')) {
      return;
    }
    const now = this.clock.now();
    await this.quotes.update(quote.id, { status: 'paid', paidAt: now, updatedAt: now });
    for (const hook of this.paidHooks) {
      await hook(quote, intent);
    }
  }

  /** The payment was denied, expired or failed on the rail: the quote is open again. */
  async onIntentDeclined(intent: PaymentIntent): Promise<void> {
    const quote = await this.quotes.findByIntent(intent.id);
    if (!quote || (quote.status !== 'pending_approval' && quote.status !== 'processing')) {
      return;
    }
    await this.quotes.update(quote.id, {
      status: 'open',
      intentId: null,
      updatedAt: this.clock.now(),
    });
  }

  private build(p: {
    now: Date;
    ttlSeconds: number;
    seller: { id: string; workspaceId: string; name: string };
    buyer: { id: string; workspaceId: string };
    origin: Quote['origin'];
    offerId: string | null;
    category: string;
    lineItems: QuoteLineItem[];
  }): Quote {
    const amountPaise = p.lineItems.reduce((sum, li) => sum + li.amount_paise, 0);
    if (
      !Number.isSafeInteger(amountPaise) ||
      p.lineItems.some((li) => !Number.isSafeInteger(li.amount_paise))
    ) {
      throw quoteErrors.amountTooLarge();
    }
    return Object.assign(new Quote(), {
      id: unguessableId('qt'),
      sellerWorkspaceId: p.seller.workspaceId,
      sellerAgentId: p.seller.id,
      sellerName: p.seller.name,
      buyerWorkspaceId: p.buyer.workspaceId,
      buyerAgentId: p.buyer.id,
      origin: p.origin,
      offerId: p.offerId,
      category: p.category,
      lineItems: p.lineItems,
      amountPaise,
      currency: 'INR' as const,
      status: 'open' as const,
      intentId: null,
      expiresAt: new Date(p.now.getTime() + p.ttlSeconds * 1000),
      createdAt: p.now,
      updatedAt: p.now,
      paidAt: null,
      canceledAt: null,
    });
  }
}

/** Intent description: seller and items, short enough for an approval summary. */
function describe(q: Quote): string {
  const items = q.lineItems
    .map((li) => (li.quantity > 1 ? `${li.quantity} × ${li.name}` : li.name))
    .join(', ');
  const text = `Quote ${q.id} from ${q.sellerName}: ${items}`;
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}
