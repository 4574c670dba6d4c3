import { Inject, Injectable, OnModuleInit } from '@nestjs/common';

import { AgentRepository } from '../accounts/agent.repository';
import {
  CLOSED_BUYER,
  CLOSED_SELLER,
  EndedForClosure,
  PartyClosure,
} from '../accounts/party-closure.service';
import { Approval } from '../approvals/approval.entity';
import {
  ApprovalDecision,
  ApprovalsService,
  ApprovalWithdrawn,
} from '../approvals/approvals.service';
import { AuditLog } from '../common/audit';
import { Clock } from '../common/clock';
import { formatRupees } from '../common/money';
import { Sweeper } from '../common/sweeper/sweeper';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { Tx } from '../database/tx';
import { DelegatedTokenRepository } from '../delegate-payment/delegated-token.repository';
import { MandateRepository } from '../mandates/mandate.repository';
import { BusinessMetrics } from '../metrics/business-metrics';
import { evaluateBuyerRules } from './buyer-rules';
import { IntentSourceKind, PaymentIntent } from './entities/payment-intent.entity';
import { partyRefusalOf } from './party-gate';
import { PaymentAttempt } from './payment-attempt';
import { PaymentIntentRepository } from './payment-intent.repository';
import { PaymentSources } from './payment-sources';
import { PaymentsService } from './payments.service';

/** Why a waiting payment was declined: the code on the intent and a sentence for people. */
export interface WaitingDecline {
  code: string;
  reason: string;
}

/**
 * Payments waiting for a person (docs/architecture.md "Payment pipeline"): pay() records a payment
 * above the approval threshold `requires_approval` and asks for an approval; this registers the
 * approval handler for it. When the person approves, the whole rule set is checked again under the
 * same locks (source → token → buyer agent → mandate → intent) and the pipeline takes the payment
 * to the rail (PaymentsService.debitOnRail, the one call in this direction); a denial, an expiry,
 * a canceled source or a mandate or token that ended first declines it and tells the source.
 */
@Injectable()
export class WaitingPayments implements OnModuleInit {
  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly intents: PaymentIntentRepository,
    private readonly agents: AgentRepository,
    private readonly mandates: MandateRepository,
    private readonly tokens: DelegatedTokenRepository,
    private readonly approvals: ApprovalsService,
    private readonly sources: PaymentSources,
    private readonly sweeper: Sweeper,
    private readonly pipeline: PaymentsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: BusinessMetrics,
    private readonly closure: PartyClosure,
  ) {}

  onModuleInit(): void {
    this.approvals.registerHandler('payment', {
      prepare: (approval) => this.lockWaiting(approval.subjectId),
      decided: (approval, decision, locked) => this.onApprovalDecided(approval, decision, locked),
    });
    // Safety net for declineWaitingOn (which skips a payment whose source another request holds)
    // and the only path for a mandate that simply reached its valid_until.
    this.sweeper.register(
      'payments-waiting-on-ended-mandates',
      () => this.declineWaitingOnEnded(),
      { everyMs: 5000 },
    );
    // First in a closure: a payment waiting for a person is declined before its source is
    // canceled (docs/architecture.md "Party lifecycle").
    this.closure.register('waiting-payments', 10, (w) =>
      this.declineWaitingOfClosed(w.workspaceId),
    );
  }

  /**
   * A workspace closes (PartyClosure): every payment waiting for a person with it as buyer or
   * seller is declined `seller_unavailable` / `buyer_unavailable`, its approval withdrawn and its
   * source told; in the closing transaction, sources locked first (the lock order).
   */
  private async declineWaitingOfClosed(workspaceId: string): Promise<EndedForClosure[]> {
    const ended: EndedForClosure[] = [];
    for (const row of await this.intents.waitingOn({ workspaceId })) {
      const source = this.sources.get(row.source_kind);
      const locked = source ? await source.lock(row.source_id) : null;
      const intent = await this.intents.lock(row.id);
      if (!intent || intent.status !== 'requires_approval') {
        continue;
      }
      const sellerClosed = intent.sellerWorkspaceId === workspaceId;
      const why = sellerClosed ? CLOSED_SELLER : CLOSED_BUYER;
      await this.declineIntent(intent, why);
      await this.approvals.withdraw('payment', intent.id, withdrawnNote(why));
      const attempt = PaymentAttempt.resume(intent);
      attempt.lockedSource(locked);
      await source?.onDeclined(intent, attempt);
      ended.push({
        kind: 'payment_intent',
        id: intent.id,
        counterparty: sellerClosed
          ? { workspaceId: intent.buyerWorkspaceId, agentId: intent.buyerAgentId }
          : { workspaceId: intent.sellerWorkspaceId, agentId: intent.sellerAgentId },
        words: `${why.reason}: the payment of ${formatRupees(intent.amountPaise)} waiting for approval was declined; no money moved.`,
      });
    }
    return ended;
  }

  /**
   * The source was canceled while its payment waited for a person: decline the intent and
   * withdraw the approval. Caller holds the source lock (lock order source → intent).
   */
  async cancelPending(
    intentId: string,
    reason = 'The payment was canceled before approval',
  ): Promise<void> {
    const intent = await this.intents.lock(intentId);
    if (!intent || intent.status !== 'requires_approval') {
      return;
    }
    await this.declineIntent(intent, { code: 'canceled', reason });
    await this.approvals.withdraw('payment', intentId, reason);
  }

  /**
   * A mandate or token ended (revoked by a person): decline every payment waiting for approval
   * on it and withdraw the approvals, in the caller's transaction. The caller already holds the
   * mandate or token, which comes after the source in the lock order, so sources are only tried
   * (SKIP LOCKED), never waited for: a payment whose source another request holds is left to that
   * request (an approval being decided re-checks the rules and sees the revocation) or to the
   * sweep. Returns the ids declined.
   */
  async declineWaitingOn(
    on: { mandateId: string } | { tokenId: string },
    decline: WaitingDecline,
  ): Promise<string[]> {
    const waiting = await this.intents.waitingOn(on);
    const declined: string[] = [];
    for (const row of waiting) {
      const source = this.sources.get(row.source_kind);
      const locked = source ? await source.lock(row.source_id, { skipLocked: true }) : null;
      if (source && !locked) {
        continue;
      }
      const intent = await this.intents.lock(row.id, { skipLocked: true });
      if (!intent || intent.status !== 'requires_approval') {
        continue;
      }
      await this.declineIntent(intent, decline);
      await this.approvals.withdraw('payment', intent.id, withdrawnNote(decline));
      const attempt = PaymentAttempt.resume(intent);
      attempt.lockedSource(locked);
      await source?.onDeclined(intent, attempt);
      declined.push(intent.id);
    }
    return declined;
  }

  /** Payments waiting for approval on this mandate or token (no locks). */
  waitingOn(
    on: { mandateId: string } | { tokenId: string },
  ): Promise<{ id: string; source_kind: IntentSourceKind; source_id: string }[]> {
    return this.intents.waitingOn(on);
  }

  /**
   * The sweep: payments still waiting on a mandate that is no longer active (revoked, expired, or
   * past valid_until) or on a revoked token. Each is re-checked in its own transaction, taking the
   * locks in order, and declined with the rule that now fails.
   */
  async declineWaitingOnEnded(limit = 50): Promise<number> {
    const ids = await this.intents.waitingOnEnded(this.clock.now(), limit);
    let declined = 0;
    for (const id of ids) {
      declined += (await this.recheckWaiting(id)) ? 1 : 0;
    }
    return declined;
  }

  /** Re-runs the rules for one waiting payment under its locks; declines it when they fail. */
  async recheckWaiting(intentId: string): Promise<boolean> {
    return this.tx.run(async () => {
      const attempt = await this.lockWaiting(intentId);
      const intent = attempt?.intent;
      if (!attempt || !intent || intent.status !== 'requires_approval') {
        return false;
      }
      const decline = await this.recheckRules(intent);
      if (!decline) {
        return false;
      }
      await this.declineIntent(intent, decline);
      await this.approvals.withdraw('payment', intent.id, withdrawnNote(decline));
      await this.sources.get(intent.sourceKind)?.onDeclined(intent, attempt);
      return true;
    });
  }

  /**
   * Everything a decision on a waiting payment reads or changes, in the lock order: source →
   * token → buyer agent → mandate → intent (the approval row is locked after, by its service).
   * The attempt holds the locked source row and the intent as locked (null: no such intent).
   */
  private async lockWaiting(intentId: string): Promise<PaymentAttempt | null> {
    const peek = await this.intents.find(intentId);
    if (!peek) {
      return null;
    }
    const source = this.sources.get(peek.sourceKind);
    const locked = source ? await source.lock(peek.sourceId) : null;
    if (peek.tokenId) {
      await this.tokens.lock(peek.tokenId);
    }
    await this.agents.lock(peek.buyerAgentId);
    if (peek.mandateId) {
      await this.mandates.lock(peek.mandateId);
    }
    const intent = await this.intents.lock(intentId);
    if (!intent) {
      return null;
    }
    const attempt = PaymentAttempt.resume(intent);
    attempt.lockedSource(locked);
    return attempt;
  }

  /**
   * The whole rule set again for a payment that waited (caller holds lockWaiting's locks): mandate
   * status and validity, token state, per-payment cap, seller list and the daily cap, counting
   * what else the buyer committed today but not this payment itself.
   */
  private async recheckRules(intent: PaymentIntent): Promise<WaitingDecline | null> {
    const mandate = intent.mandateId ? await this.mandates.findById(intent.mandateId) : null;
    if (!mandate) {
      return { code: 'mandate_not_active', reason: 'The payment has no mandate to draw on' };
    }
    const token = intent.tokenId ? await this.tokens.find(intent.tokenId) : null;
    const now = this.clock.now();
    return evaluateBuyerRules({
      mandate,
      token,
      recurringCharge: intent.sourceKind === 'recurring',
      amountPaise: intent.amountPaise,
      sellerAgentId: intent.sellerAgentId,
      now,
      spentTodayPaise: await this.intents.spentOn(intent.buyerAgentId, now, intent),
      dailyCapPaise: this.config.dailyCapPaise,
    });
  }

  private async declineIntent(intent: PaymentIntent, decline: WaitingDecline): Promise<void> {
    const now = this.clock.now();
    Object.assign(intent, {
      status: 'declined',
      declineCode: decline.code,
      declineReason: decline.reason,
      updatedAt: now,
    });
    await this.intents.update(intent.id, {
      status: 'declined',
      declineCode: decline.code,
      declineReason: decline.reason,
      updatedAt: now,
    });
    await this.audit.record(
      intent.buyerWorkspaceId,
      { type: 'system', id: 'pipeline' },
      'intent.declined',
      intent.id,
      {
        code: decline.code,
      },
    );
    this.metrics.payment(intent);
  }

  /** `locked`: what lockWaiting locked for this decision (null: the intent was not found). */
  private async onApprovalDecided(
    approval: Approval,
    decision: ApprovalDecision,
    locked: PaymentAttempt | null,
  ): Promise<void | ApprovalWithdrawn> {
    const intent = locked?.intent;
    if (!locked || !intent || intent.status !== 'requires_approval') {
      return;
    }
    const source = this.sources.get(intent.sourceKind);
    if (decision === 'approved') {
      // pay()'s lifecycle gate again (docs/architecture.md "Party lifecycle"): a party closed or
      // suspended while the payment waited ends it declined, never a retried error.
      const party = await partyRefusalOf(
        this.tx.manager,
        intent.buyerAgentId,
        intent.sellerAgentId,
      );
      const refused = party
        ? { code: party.code, reason: party.message.replace(/\.$/, '') }
        : await this.recheckRules(intent);
      if (refused) {
        await this.declineIntent(intent, refused);
        await source?.onDeclined(intent, locked);
        return { withdrawn: withdrawnNote(refused) };
      }
      // Approved: recorded processing with the approval on its receipt context; the rail is
      // called once the decision commits and the source hears the outcome then (applyDebit).
      const now = this.clock.now();
      const receiptContext = {
        ...intent.receiptContext,
        approval: {
          id: approval.id,
          decided_by: approval.decidedBy,
          decided_at: approval.decidedAt?.toISOString() ?? null,
        },
      };
      Object.assign(intent, { status: 'processing', receiptContext, updatedAt: now });
      await this.intents.update(intent.id, {
        status: 'processing',
        receiptContext,
        updatedAt: now,
      });
      // Taken up by id: the rail step reads the intent as this decision committed it.
      await this.tx.continueAfterCommit(() =>
        this.pipeline.debitOnRail(PaymentAttempt.ofIntent(intent.id)),
      );
      return;
    }
    await this.declineIntent(
      intent,
      decision === 'denied'
        ? { code: 'approval_denied', reason: 'A person declined this payment' }
        : { code: 'approval_expired', reason: 'Nobody approved this payment in time' },
    );
    await source?.onDeclined(intent, locked);
  }
}

/** The note a person reads on an approval that could no longer go ahead. */
function withdrawnNote(decline: WaitingDecline): string {
  return `This payment can no longer go ahead: ${decline.reason}.`;
}
