import { Inject, Injectable, OnModuleInit } from '@nestjs/common';

import { AuditLog } from '../common/audit';
import type { ProtocolKeyPrincipal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { formatRupees } from '../common/money';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { AfterCommit, Eventually, Tx } from '../database/tx';
import { TokensService } from '../delegate-payment/tokens.service';
import { OrdersService } from '../orders/orders.service';
import type { PaymentIntent } from '../payments/entities/payment-intent.entity';
import { AnswerStore, PaymentAttempt } from '../payments/payment-attempt';
import { PaymentSources } from '../payments/payment-sources';
import { PaymentsService } from '../payments/payments.service';
import { checkoutErrors } from './checkout.errors';
import { CheckoutService } from './checkout.service';
import {
  applyFulfillmentDetails,
  checkCompleteFulfillment,
  parsePaymentData,
} from './checkout-input';
import { priceLines, sessionTotal, wantedFromStored } from './checkout-pricing';
import { CheckoutSession, StoredMessage } from './checkout-session.entity';
import { CheckoutSessionRepository } from './checkout-session.repository';
import { canComplete, effectiveStatus } from './checkout-session.state';
import type { AcpCheckoutSession } from './dto/checkout-session.response';
import type { CompleteCheckoutSessionDto } from './dto/complete-checkout-session.dto';

/** docs/acp.md §5: a refused or failed payment leaves the session payable with this message. */
export function paymentDeclinedMessage(
  intent: Pick<PaymentIntent, 'status' | 'declineReason'>,
): StoredMessage {
  const why =
    intent.status === 'failed'
      ? `The UPI payment failed: ${intent.declineReason ?? 'the bank refused it'}.`
      : `Payment refused by the buyer's spending rules: ${intent.declineReason ?? 'not allowed'}.`;
  return {
    type: 'error',
    code: 'payment_declined',
    severity: 'high',
    resolution: 'recoverable',
    param: '$.payment_data',
    content_type: 'plain',
    content: `${why} The token was used up; request a new token and retry.`,
  };
}

/**
 * Complete (docs/acp.md §5) and the session side of payments that finish later (a person approves
 * or declines). Everything runs under the session row lock; lock order is session → token → buyer
 * agent → mandate → intent, the same as the approval path (PaymentSources.lock).
 */
@Injectable()
export class CheckoutCompletionService implements OnModuleInit {
  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly repo: CheckoutSessionRepository,
    private readonly checkout: CheckoutService,
    private readonly tokens: TokensService,
    private readonly payments: PaymentsService,
    private readonly sources: PaymentSources,
    private readonly orders: OrdersService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.sources.register<CheckoutSession, AcpCheckoutSession>('checkout', {
      lock: (sessionId, opts) => this.repo.lockById(sessionId, opts),
      lockStatement: {
        sql: (sessionId) => this.repo.lockStatement(sessionId),
        adopt: (row) => this.repo.fromJson(row),
      },
      onSettled: (intent, attempt) => this.onApprovedPaymentSettled(intent, attempt),
      onDeclined: (intent, attempt) => this.onPendingPaymentDeclined(intent, attempt),
    });
  }

  /**
   * The payment's first phase runs here, under the session lock: the intent is recorded and, when
   * it goes to the rail, the session is `complete_in_progress` when this transaction commits. The
   * answer is then an AfterCommit: once the rail has answered and the pipeline's second transaction
   * has moved the session (onApprovedPaymentSettled / onPendingPaymentDeclined), that session, given
   * to the PaymentAttempt and handed over once its transaction commits, is the answer (completed
   * with its order, or ready_for_payment with the reason); that transaction also stores it on the
   * request's Idempotency-Key (`keyAnswer`, null without a key).
   * If the rail has no definite answer yet the answer is `complete_in_progress`; GET shows the end.
   */
  async completeSession(
    caller: ProtocolKeyPrincipal,
    id: string,
    body: CompleteCheckoutSessionDto,
    keyAnswer: AnswerStore | null,
  ): Promise<Eventually<AcpCheckoutSession>> {
    const credential = parsePaymentData(body.payment_data);
    return this.tx.run(async () => {
      // The session locked with its offers' states, the token locked, then the buyer agent and the
      // mandate the token names locked and its day's spend read for pay(): statements written back
      // to back in the lock order, one round trip (docs/architecture.md "Round trips"). All are
      // awaited here, so a lock conflict in any of them is this attempt's error before anything
      // else is decided.
      const locked = Promise.all([
        this.checkout.lockVisibleWithOffers(caller, id),
        this.tokens.lockForRedeem(credential.tokenId),
      ]);
      const payerLocks = this.payments.sendPayerLocks(credential.tokenId, this.clock.now());
      const [[{ session, offers }]] = await Promise.all([locked, payerLocks.answer]);
      // A retry that took the key over from a run that died after its first commit: that run's
      // payment is this request's, and its state is the answer (never token_used).
      const resumed = (await keyAnswer?.payment?.resumed) ?? null;
      if (resumed !== null) {
        return this.resumeCompletion(session, resumed, keyAnswer);
      }
      // fulfillment_details (docs/acp.md "Accepted extensions"): a 409 changes nothing.
      checkCompleteFulfillment(session, body.fulfillment_details);
      const now = this.clock.now();
      const status = effectiveStatus(session, now);
      const total = sessionTotal(session.lineItems);
      const redeem = () =>
        this.tokens.redeem(
          {
            tokenId: credential.tokenId,
            checkoutSessionId: id,
            merchantAgentId: session.sellerAgentId,
            amountPaise: total,
          },
          locked.then(([, token]) => token),
        );
      if (!canComplete(status)) {
        // Token problems are reported first, so a retry with a spent token always reads token_used
        // (e.g. the losers of a race on one token); the redeem is rolled back with the error below.
        await redeem();
        throw checkoutErrors.invalidState(id, status, 'completed');
      }
      if (await this.offerWithdrawnSince(session, offers)) {
        // The session stops being payable; the token is untouched (nothing was redeemed).
        await this.repo.saveAtCommit(session);
        return this.checkout.present(session);
      }
      const { token } = await redeem();
      if (body.buyer) {
        session.buyer = { ...body.buyer };
      }
      // Applied as an update would (ACP PR #200); a changed address was refused above.
      session.fulfillmentDetails = applyFulfillmentDetails(
        session.fulfillmentDetails,
        body.fulfillment_details,
      );
      const units = session.lineItems.reduce((n, l) => n + l.quantity, 0);
      // The intent and the session are written by the commit's one statement: nothing here reads
      // them back.
      const attempt = PaymentAttempt.start<CheckoutSession, AcpCheckoutSession>(
        { kind: 'checkout', id },
        { store: keyAnswer },
      );
      const outcome = await this.payments.pay(
        attempt,
        {
          buyerAgentId: token.buyerAgentId,
          sellerAgentId: session.sellerAgentId,
          amountPaise: total,
          mandateId: token.mandateId,
          tokenId: token.id,
          payerLocks,
          description: `Checkout ${id} (${units} ${units === 1 ? 'item' : 'items'})`,
          receiptContext: {
            checkout_session_id: id,
            line_items: session.lineItems.map((l) => ({
              sku: l.sku,
              quantity: l.quantity,
              unit_paise: l.unit_paise,
            })),
          },
        },
        { rail: 'after_commit', insert: 'with_commit' },
      );
      session.intentId = outcome.intent.id;
      session.updatedAt = this.clock.now();
      switch (outcome.status) {
        case 'processing':
          session.status = 'complete_in_progress';
          session.messages = [
            {
              type: 'info',
              severity: 'info',
              content_type: 'plain',
              content:
                'The UPI payment is being processed. Retrieve this session to see the outcome.',
            },
          ];
          break;
        case 'requires_approval':
          session.status = 'pending_approval';
          session.messages = [
            {
              type: 'info',
              severity: 'info',
              resolution: 'requires_buyer_review',
              content_type: 'plain',
              content:
                `This payment of ${formatRupees(total)} is above ${formatRupees(this.config.approvalThresholdPaise)}, ` +
                'so a person must approve it in the app before the order is placed. Retrieve this session to see the outcome.',
            },
          ];
          break;
        case 'declined':
          session.status = 'ready_for_payment';
          session.messages = [paymentDeclinedMessage(outcome.intent)];
          break;
      }
      await this.repo.saveAtCommit(session);
      // order_create (+ the digital delivery's order_update) in this transaction, when it completed.
      await this.orders.emitCompleted(session);
      await this.audit.record(
        session.workspaceId,
        { type: 'protocol_key', id: caller.id },
        'checkout.complete',
        id,
        {
          outcome: outcome.status,
          intent_id: outcome.intent.id,
        },
      );
      if (outcome.status === 'processing') {
        const sellerName = outcome.sellerName;
        return new AfterCommit(
          async () =>
            attempt.answer ??
            // No definite answer from the rail yet (or the reconciler or a webhook ended it): read it.
            this.presentCurrent(id, keyAnswer, sellerName),
        );
      }
      return this.checkout.present(session);
    });
  }

  /**
   * The answer of a complete retried after its first run died between the payment's two
   * transactions (the app, or Postgres under it: docs/security.md "Idempotency"), that run's intent
   * `intentId` being this request's payment (its Idempotency-Key names it). Nothing is redeemed or
   * paid again: the session as it stands is the answer (completed, pending_approval, or payable
   * again with the decline), the same body the first run would have given. A payment still on the
   * rail is asked about again as the reconciler would (idempotent per intent), and the answer waits
   * for it as the first run's did, stored on the key by the transaction that ends it.
   */
  private resumeCompletion(
    session: CheckoutSession,
    intentId: string,
    keyAnswer: AnswerStore | null,
  ): Promise<Eventually<AcpCheckoutSession>> | Eventually<AcpCheckoutSession> {
    if (session.intentId !== intentId || session.status !== 'complete_in_progress') {
      return this.checkout.present(session);
    }
    const attempt = PaymentAttempt.resumeAwaited<CheckoutSession, AcpCheckoutSession>(
      { kind: 'checkout', id: session.id },
      intentId,
      { store: keyAnswer },
    );
    return new AfterCommit(async () => {
      await this.payments.debitOnRail(attempt, 'reconcile');
      return attempt.answer ?? this.presentCurrent(session.id, keyAnswer);
    });
  }

  /**
   * The session as it stands, when the rail gave the waiting request no definite answer (or
   * someone else ended the payment first). Still `complete_in_progress`, it is not the payment's
   * end: the key is told (`unfinished`), so that answer is not stored on it and a retry answers the
   * session's state then (docs/security.md "A retry after a 503 or a crash").
   */
  private async presentCurrent(
    id: string,
    keyAnswer: AnswerStore | null,
    sellerName?: string,
  ): Promise<AcpCheckoutSession> {
    const session = (await this.repo.findById(id)) as CheckoutSession;
    if (session.status === 'complete_in_progress') {
      keyAnswer?.payment?.unfinished();
    }
    return this.checkout.present(session, sellerName);
  }

  /**
   * The snapshot price holds until expiry, but a withdrawn offer blocks payment: re-check the
   * offers and, if one went, move the session to not_ready_for_payment with the reason.
   */
  private async offerWithdrawnSince(
    session: CheckoutSession,
    offers: Map<string, boolean>,
  ): Promise<boolean> {
    const withdrawn = session.lineItems.some((l) => !offers.get(l.sku));
    if (!withdrawn) {
      return false;
    }
    const facts = new Map(
      session.lineItems.map((l) => [
        l.sku,
        {
          sku: l.sku,
          name: l.name,
          unitPaise: l.unit_paise,
          category: l.category,
          active: offers.get(l.sku) ?? false,
        },
      ]),
    );
    const priced = priceLines(
      wantedFromStored(session.lineItems),
      facts,
      session.lineItems,
      await this.checkout.sellerNameOf(session),
    );
    Object.assign(session, {
      status: priced.status,
      messages: priced.messages,
      updatedAt: this.clock.now(),
    });
    return true;
  }

  private markCompleted(session: CheckoutSession): void {
    const now = this.clock.now();
    Object.assign(session, {
      status: 'completed',
      orderId: newId('ord'),
      completedAt: now,
      updatedAt: now,
      messages: [],
    });
  }

  /** The rail settled (right after complete, or after a person approved): completed with its order. */
  private async onApprovedPaymentSettled(
    intent: PaymentIntent,
    attempt: PaymentAttempt<CheckoutSession, AcpCheckoutSession>,
  ): Promise<void> {
    const session = await this.sourceRow(intent, attempt);
    if (!session || !isPaying(session.status) || session.intentId !== intent.id) {
      return;
    }
    this.markCompleted(session);
    await this.repo.saveAtCommit(session);
    await this.orders.emitCompleted(session);
    await this.answerWaiting(session, intent.receiptId, attempt);
  }

  /** The session the attempt's transaction locked (docs/testing.md "SQL budgets"), else read. */
  private async sourceRow(
    intent: PaymentIntent,
    attempt: PaymentAttempt<CheckoutSession>,
  ): Promise<CheckoutSession | null> {
    return attempt.locked ?? this.repo.findById(intent.sourceId);
  }

  /**
   * The answer of the complete request waiting for this attempt (when one is): presented now, and
   * given to the attempt, which stores it on the request's Idempotency-Key with this transaction's
   * commit and hands it over once committed.
   */
  private async answerWaiting(
    session: CheckoutSession,
    receiptId: string | null,
    attempt: PaymentAttempt<CheckoutSession, AcpCheckoutSession>,
  ): Promise<void> {
    if (!attempt.awaited) {
      return;
    }
    const answer = await this.checkout.present(session, attempt.sellerName ?? undefined, receiptId);
    await attempt.answerWith(this.tx, answer);
  }

  /** Denied, expired approval or a rail failure: payable again, with the reason. */
  private async onPendingPaymentDeclined(
    intent: PaymentIntent,
    attempt: PaymentAttempt<CheckoutSession, AcpCheckoutSession>,
  ): Promise<void> {
    const session = await this.sourceRow(intent, attempt);
    if (!session || !isPaying(session.status) || session.intentId !== intent.id) {
      return;
    }
    Object.assign(session, {
      status: 'ready_for_payment',
      messages: [paymentDeclinedMessage(intent)],
      updatedAt: this.clock.now(),
    });
    await this.repo.saveAtCommit(session);
    await this.answerWaiting(session, null, attempt);
  }
}

/** A session whose payment has not ended: waiting for a person, or on the rail. */
function isPaying(status: CheckoutSession['status']): boolean {
  return status === 'pending_approval' || status === 'complete_in_progress';
}
