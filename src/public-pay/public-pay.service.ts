import { Inject, Injectable, OnModuleInit } from '@nestjs/common';

import { AuditLog } from '../common/audit';
import { Clock } from '../common/clock';
import { formatRupees } from '../common/money';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { RefusalKeepingWrites, Tx } from '../database/tx';
import type { Decline } from '../payments/buyer-rules';
import type { PaymentIntent } from '../payments/entities/payment-intent.entity';
import { PAYMENT_RAIL, PaymentRail } from '../payments/payment-rail';
import { PaymentSources } from '../payments/payment-sources';
import { PaymentsService } from '../payments/payments.service';
import type { Quote } from '../quotes/quote.entity';
import { effectiveStatus, whyNotPayable } from '../quotes/quote.state';
import { QuotesService } from '../quotes/quotes.service';
import { unguessableId } from '../quotes/unguessable-id';
import type { CheckoutOutcome } from './dto/public-pay.dto';
import { HostedCheckoutResponse, PublicPayView } from './dto/public-pay.response';
import { HostedCheckout, HostedCheckoutStatus } from './hosted-checkout.entity';
import { toCheckoutResponse } from './hosted-checkout.mapper';
import { HostedCheckoutRepository } from './hosted-checkout.repository';
import {
  assertMove,
  checkoutExpiry,
  effectiveCheckoutStatus,
  isLive,
} from './hosted-checkout.state';
import { publicPayErrors } from './public-pay.errors';

/** Why a quote cannot be paid on the page now: a code for the API, a sentence for the person. */
interface NotPayable {
  code: string;
  reason: string;
}

/** What the person reads when their simulated payment fails. */
const SIMULATED_FAILURE =
  'The payment did not go through (sandbox: simulated failure). No money moved; you can try again.';

/**
 * The hosted payment page and the public pay API (spec §1, §4 "Public pay API", §5 rule 5): a
 * seller's agent sends a quote's pay_url to the buyer's person, who opens it, sees what they pay
 * for and to whom, and pays with no sign-in. The unguessable quote id (≈138 bits, see
 * quotes/unguessable-id.ts) is the only capability; every answer about an unknown id is the same.
 *
 * A hosted payment is an ordinary payment of the one pipeline (QuotesService.payOnPage →
 * PaymentsService.pay) with source {kind: 'hosted', id: hco_…}: the person's act on the page is
 * the approval, so no mandate is drawn and no separate approval is asked, while the buyer agent's
 * own rules (its daily cap) still apply. Settling writes the signed receipt, marks the quote paid
 * and raises intent.settled to the seller, exactly as when the buyer agent pays the quote.
 *
 * States: hosted-checkout.state.ts. Lock order: quote → hosted checkout → (pipeline) buyer agent →
 * intent; both rows are "the source" of PaymentsService's lock order.
 */
@Injectable()
export class PublicPayService implements OnModuleInit {
  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly checkouts: HostedCheckoutRepository,
    private readonly quotes: QuotesService,
    private readonly payments: PaymentsService,
    private readonly sources: PaymentSources,
    @Inject(PAYMENT_RAIL) private readonly rail: PaymentRail,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    // Hosted payments settle in the request that completes them (the person is the approval), so
    // the pipeline calls these only if one ever waits (a gateway callback, later); they keep the
    // checkout and the quote in step the same way completeCheckout does.
    this.sources.register('hosted', {
      lock: async (checkoutId, opts) => {
        const row = await this.checkouts.find(checkoutId);
        return (
          row !== null &&
          (await this.quotes.lockQuote(row.quoteId, opts)) !== null &&
          (await this.checkouts.lock(checkoutId, opts)) !== null
        );
      },
      onSettled: async (intent) => {
        const checkout = await this.checkouts.find(intent.sourceId);
        if (checkout && checkout.status === 'processing') {
          await this.finish(checkout, { status: 'paid', intentId: intent.id });
        }
      },
      onDeclined: async (intent) => {
        const checkout = await this.checkouts.find(intent.sourceId);
        if (checkout && checkout.status === 'processing') {
          await this.finish(checkout, {
            status: 'failed',
            intentId: intent.id,
            failureCode: intent.declineCode ?? 'payment_failed',
            failureReason: this.words(
              { code: intent.declineCode ?? '', reason: intent.declineReason ?? '' },
              'the buyer',
            ),
          });
        }
      },
    });
  }

  /** GET /v1/public/pay/quotes/{id}: the public view (spec §2), with the buyer's rules applied. */
  async getView(quoteId: string): Promise<PublicPayView> {
    const view = await this.findView(quoteId);
    if (!view) {
      throw publicPayErrors.quoteNotFound();
    }
    return view;
  }

  /** The view, or null for an unknown id (the page renders its own 404). */
  async findView(quoteId: string): Promise<PublicPayView | null> {
    // Any id string is looked up (no format check first), so a malformed id costs what an unknown
    // well-formed one does: one primary-key lookup, then the same 404.
    const quote = await this.quotes.findForPage(quoteId);
    if (!quote) {
      return null;
    }
    const now = this.clock.now();
    const base = await this.quotes.publicView(quote, now);
    const blocked = await this.whyNotPayable(quote, base.quote.buyer_name, now);
    const latest = await this.checkouts.latest(quote.id);
    return {
      ...base,
      payable: blocked === null,
      reason: blocked?.reason ?? null,
      checkout: latest ? await this.respond(latest, quote, now) : null,
    };
  }

  /**
   * POST …/checkout: starts a hosted checkout, or returns the live one (at most one per quote).
   * 409 with the reason when the quote cannot be paid.
   */
  async startCheckout(quoteId: string): Promise<HostedCheckoutResponse> {
    return this.tx.run(async () => {
      const quote = await this.quotes.lockQuote(quoteId);
      if (!quote) {
        throw publicPayErrors.quoteNotFound();
      }
      const now = this.clock.now();
      const blocked = await this.whyNotPayable(quote, await this.buyerName(quote), now);
      const live = await this.checkouts.lockLive(quote.id);
      if (live) {
        const status = effectiveCheckoutStatus(live, effectiveStatus(quote, now), now);
        if (status === 'expired') {
          assertMove(live.status, 'expired');
          Object.assign(live, { status, updatedAt: now });
          await this.checkouts.update(live.id, { status, updatedAt: now });
        } else if (!blocked || status === 'processing') {
          return this.respond(live, quote, now);
        }
      }
      if (blocked) {
        throw publicPayErrors.notPayable(blocked.code, blocked.reason);
      }
      const checkout = Object.assign(new HostedCheckout(), {
        id: unguessableId('hco'),
        quoteId: quote.id,
        status: 'created' as const,
        amountPaise: quote.amountPaise,
        currency: 'INR' as const,
        rail: this.rail.name,
        intentId: null,
        attempts: 0,
        failureCode: null,
        failureReason: null,
        expiresAt: checkoutExpiry(quote.expiresAt, now),
        createdAt: now,
        updatedAt: now,
        completedAt: null,
      });
      await this.checkouts.insert(checkout);
      await this.audit.record(
        quote.buyerWorkspaceId,
        PAGE_ACTOR,
        'hosted_checkout.started',
        checkout.id,
        {
          quote_id: quote.id,
        },
      );
      return this.respond(checkout, quote, now);
    });
  }

  /**
   * POST …/checkout/{id}/complete (sandbox rail): success pays through the pipeline, failure
   * records a failed attempt. A paid checkout answers success again unchanged (so twenty
   * concurrent successes make one payment and twenty identical answers); anything else that is
   * not live is 409.
   */
  async completeCheckout(
    quoteId: string,
    checkoutId: string,
    outcome: CheckoutOutcome,
  ): Promise<HostedCheckoutResponse> {
    return this.tx.run(async () => {
      const quote = await this.quotes.lockQuote(quoteId);
      if (!quote) {
        throw publicPayErrors.quoteNotFound();
      }
      const checkout = await this.checkouts.lock(checkoutId);
      if (!checkout || checkout.quoteId !== quote.id) {
        throw publicPayErrors.checkoutNotFound();
      }
      const now = this.clock.now();
      const quoteStatus = effectiveStatus(quote, now);
      const status = effectiveCheckoutStatus(checkout, quoteStatus, now);
      switch (status) {
        case 'paid':
          if (outcome === 'success') {
            return this.respond(checkout, quote, now);
          }
          throw publicPayErrors.checkoutAlreadyPaid();
        case 'failed':
          throw publicPayErrors.checkoutClosed(
            'failed',
            'This payment attempt failed; start a new checkout to try again.',
          );
        case 'processing':
          throw publicPayErrors.checkoutInProgress();
        case 'expired': {
          const reason =
            whyNotPayable(quoteStatus)?.reason ??
            'This checkout expired before it was paid; start again.';
          if (checkout.status === 'created') {
            // Record the expiry even though the answer is a refusal.
            Object.assign(checkout, {
              status,
              failureCode: 'checkout_expired',
              failureReason: reason,
              updatedAt: now,
            });
            await this.checkouts.update(checkout.id, {
              status,
              failureCode: 'checkout_expired',
              failureReason: reason,
              updatedAt: now,
            });
            throw new RefusalKeepingWrites(publicPayErrors.checkoutClosed('expired', reason));
          }
          throw publicPayErrors.checkoutClosed('expired', reason);
        }
        case 'created':
          break;
      }
      // The quote is open or waiting for a person's decision on its agent's payment.
      const blocked = whyNotPayable(quoteStatus);
      if (blocked) {
        throw publicPayErrors.notPayable(blocked.code, blocked.reason);
      }
      assertMove(checkout.status, 'processing');
      Object.assign(checkout, {
        status: 'processing',
        attempts: checkout.attempts + 1,
        updatedAt: now,
      });
      await this.checkouts.update(checkout.id, {
        status: 'processing',
        attempts: checkout.attempts,
        updatedAt: now,
      });
      if (outcome === 'failure') {
        await this.finish(checkout, {
          status: 'failed',
          intentId: null,
          failureCode: 'payment_failed',
          failureReason: SIMULATED_FAILURE,
        });
      } else {
        const paid = await this.quotes.payOnPage(quote, checkout.id);
        if (paid.status === 'settled') {
          await this.finish(checkout, { status: 'paid', intentId: paid.intent.id });
        } else if (paid.status === 'declined' || paid.status === 'failed') {
          await this.finish(checkout, {
            status: 'failed',
            intentId: paid.intent.id,
            failureCode: paid.decline.code,
            failureReason: this.words(paid.decline, await this.buyerName(quote)),
          });
        } else {
          throw new Error('a payment authorised on the page never waits for an approval');
        }
      }
      await this.audit.record(
        quote.buyerWorkspaceId,
        PAGE_ACTOR,
        'hosted_checkout.completed',
        checkout.id,
        {
          quote_id: quote.id,
          outcome,
          status: checkout.status,
          intent_id: checkout.intentId,
        },
      );
      return this.respond(checkout, quote, this.clock.now());
    });
  }

  /** GET …/checkout/{id}: the checkout's state; a checkout of another quote is 404. */
  async getCheckout(quoteId: string, checkoutId: string): Promise<HostedCheckoutResponse> {
    const quote = await this.quotes.findForPage(quoteId);
    if (!quote) {
      throw publicPayErrors.quoteNotFound();
    }
    const checkout = await this.checkouts.find(checkoutId);
    if (!checkout || checkout.quoteId !== quote.id) {
      throw publicPayErrors.checkoutNotFound();
    }
    return this.respond(checkout, quote, this.clock.now());
  }

  /**
   * The quote's own status first (expired, paid, canceled, waiting for a decision), then the
   * buyer's rules the pipeline would apply to a payment authorised on the page (its daily cap).
   */
  private async whyNotPayable(
    quote: Quote,
    buyerName: string,
    now: Date,
  ): Promise<NotPayable | null> {
    const blocked = whyNotPayable(effectiveStatus(quote, now));
    if (blocked) {
      return blocked;
    }
    const decline = await this.payments.previewDecline({
      mandateId: null,
      authorisedBy: 'person_on_page',
      buyerAgentId: quote.buyerAgentId,
      sellerAgentId: quote.sellerAgentId,
      amountPaise: quote.amountPaise,
    });
    return decline ? { code: 'payment_refused', reason: this.words(decline, buyerName) } : null;
  }

  /** A decline from the rules or the rail, in words for the person on the page. */
  private words(decline: Decline | { code: string; reason: string }, buyerName: string): string {
    switch (decline.code) {
      case 'daily_cap_exceeded':
        return `Paying this would take ${buyerName} over its daily spending limit of ${formatRupees(this.config.dailyCapPaise)}. Try again tomorrow, or ask the seller for a smaller quote.`;
      case 'insufficient_funds':
      case 'mandate_declined_by_bank':
      case 'bank_unavailable':
        return `The payment did not go through: ${lowerFirst(decline.reason)}. No money moved; you can try again.`;
      default:
        return "The buyer's spending rules do not allow this payment right now. No money moved.";
    }
  }

  /** The terminal move of an attempt (processing → paid | failed). */
  private async finish(
    checkout: HostedCheckout,
    to:
      | { status: 'paid'; intentId: string }
      | { status: 'failed'; intentId: string | null; failureCode: string; failureReason: string },
  ): Promise<void> {
    assertMove(checkout.status, to.status);
    const now = this.clock.now();
    const changes = {
      status: to.status,
      intentId: to.intentId,
      failureCode: to.status === 'failed' ? to.failureCode : null,
      failureReason: to.status === 'failed' ? to.failureReason : null,
      updatedAt: now,
      completedAt: now,
    };
    Object.assign(checkout, changes);
    await this.checkouts.update(checkout.id, changes);
  }

  private async respond(
    checkout: HostedCheckout,
    quote: Quote,
    now: Date,
  ): Promise<HostedCheckoutResponse> {
    const status: HostedCheckoutStatus = effectiveCheckoutStatus(
      checkout,
      effectiveStatus(quote, now),
      now,
    );
    const intent: PaymentIntent | null =
      checkout.intentId && !isLive(status)
        ? await this.payments.getIntent(checkout.intentId)
        : null;
    return toCheckoutResponse(checkout, status, intent, this.config.appUrl);
  }

  private buyerName(quote: Quote): Promise<string> {
    return this.quotes.buyerName(quote);
  }
}

/** Audit actor for what the person on the hosted page does (there is no signed-in person). */
const PAGE_ACTOR = { type: 'system' as const, id: 'pay_page' };

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}
