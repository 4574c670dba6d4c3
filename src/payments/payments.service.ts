import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';

import { accountParts } from '../accounts/accounts.repository';
import { agentParts } from '../accounts/agent.repository';
import type { AgentStatus, WorkspaceStatus } from '../accounts/party-lifecycle';
import { Approval } from '../approvals/approval.entity';
import { ApprovalsService } from '../approvals/approvals.service';
import { AuditLog } from '../common/audit';
import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { entityFromJson } from '../database/entity-from-json';
import { col, param, sql, SqlOperand } from '../database/fragment';
import { fragmentStatement, Sql, Statement } from '../database/sql';
import { Tx } from '../database/tx';
import { tokenParts } from '../delegate-payment/delegated-token.repository';
import { Mandate } from '../mandates/mandate.entity';
import { mandateParts, MandateRepository } from '../mandates/mandate.repository';
import { BusinessMetrics } from '../metrics/business-metrics';
import { OutboxRepository } from '../outbox/outbox.repository';
import { PAYMENT_RAIL, PaymentRail, RailDebitRequest, RailResult } from '../rails/payment-rail';
import { ReceiptsService } from '../receipts/receipts.service';
import { Decline, evaluateBuyerRules, indianDay } from './buyer-rules';
import { PaymentIntent } from './entities/payment-intent.entity';
import { partyRefusal } from './party-gate';
import { PaymentAttempt } from './payment-attempt';
import { PaymentIntentRepository } from './payment-intent.repository';
import { PaymentSources } from './payment-sources';
import { RailReconciler } from './rail-reconciler';
import { RailTransferRepository } from './rail-transfer.repository';
import { StatusCheckPacing } from './status-check-pacing';

/**
 * Who authorised a payment. Agents pay under a mandate their person authorised beforehand (and a
 * person approves each payment above the threshold). On the hosted payment page the person pays
 * the quote themselves: their act on the page is the approval, so no mandate is drawn
 * (`mandateId: null`, the intent's mandate_id stays null) and no separate approval is asked; the
 * buyer agent's rules that need no mandate (the daily cap) still apply. Nothing but an explicit
 * `authorisedBy: 'person_on_page'` can leave out the mandate.
 */
export type PayAuthority =
  | { mandateId: string; authorisedBy?: 'mandate' }
  | { mandateId: null; authorisedBy: 'person_on_page' }
  /**
   * A scheduled charge on a recurring mandate (src/recurring) whose person already authorised
   * this very debit during its pre-debit notice (an approval of kind `recurring_charge`): the
   * mandate's rules apply, and no second approval is asked. `authorisation` is null when the
   * amount needed none (at or below the approval threshold).
   */
  | {
      mandateId: string;
      authorisedBy: 'recurring_notice';
      authorisation: { approval_id: string; decided_by: string | null; decided_at: string } | null;
    };

export type PayRequest = PayAuthority & {
  buyerAgentId: string;
  sellerAgentId: string;
  amountPaise: number;
  tokenId: string | null;
  description: string;
  /** Extra facts recorded on the receipt (checkout session, line items, quote…). */
  receiptContext: Record<string, unknown>;
  /**
   * pay()'s lock statement and spend read, already sent by the caller (sendPayerLocks) behind its
   * own locks: pay() then waits for their answer instead of sending them.
   */
  payerLocks?: PayerLocks;
};

/** The buyer agent locked, the seller read, the mandate locked (lockBuyerAndMandate's answer). */
interface LockedParties {
  buyer: AgentFacts | null;
  seller: AgentFacts | null;
  mandate: Mandate | null;
}

/**
 * pay()'s locks sent ahead of it for a delegated token's payment (sendPayerLocks): the parties the
 * token names, locked in the lock order, and what its buyer agent committed on `day`.
 */
export interface PayerLocks {
  readonly tokenId: string;
  /** The Indian day whose spend was read (YYYY-MM-DD). */
  readonly day: string;
  readonly answer: Promise<{ parties: LockedParties; spentTodayPaise: number }>;
}

export type PayOutcome =
  | { status: 'settled'; intent: PaymentIntent }
  /**
   * Recorded `processing`: the rail is called once the caller's transaction commits (the
   * continuation pay() registered, carrying the PaymentAttempt), and a second transaction settles
   * or fails it and tells the source (PaymentSources onSettled / onDeclined, with the attempt).
   */
  | { status: 'processing'; intent: PaymentIntent }
  | { status: 'requires_approval'; intent: PaymentIntent; approval: Approval }
  | {
      status: 'declined' | 'failed';
      intent: PaymentIntent;
      decline: Decline | { code: string; reason: string };
    };

/**
 * What pay() answers. It never settles: the rail is called after the caller's transaction commits
 * (or the caller applies an answer it already has, applyDebit), so a new payment is `processing`,
 * waits for a person, or is declined by the buyer's rules. The seller's name is read with the
 * buyer's lock (a caller presenting the payment need not read it again).
 */
export type PaymentStarted = (
  | { status: 'processing'; intent: PaymentIntent }
  | { status: 'requires_approval'; intent: PaymentIntent; approval: Approval }
  | { status: 'declined'; intent: PaymentIntent; decline: Decline }
) & { sellerName: string };

/**
 * How pay() records the intent and who calls the rail; one of two shapes, so the combination that
 * cannot work (an intent queued for the commit's statement while the caller applies the rail's
 * answer to it in the same transaction) does not compile.
 * - `after_commit` (the default): the rail is called once the caller's transaction commits. The
 *   intent is inserted now, or, with `insert: 'with_commit'`, by the commit's one statement (the
 *   caller reads nothing of it back).
 * - `caller_applies`: the caller already knows the rail's answer (a gateway payment the person made
 *   in the widget, confirmed by the gateway, or a gateway webhook) and applies it with applyDebit in
 *   the same transaction, so the intent is inserted now.
 */
export type PayMode =
  { rail: 'after_commit'; insert?: 'now' | 'with_commit' } | { rail: 'caller_applies' };

/**
 * The one payment pipeline (docs/architecture.md "Payment pipeline"): every checkout, quote payment
 * and hosted-page payment becomes an intent that passes the buyer's rules, asks a person above the
 * threshold, settles on the rail and ends on a signed receipt with an outbox event. Callers run
 * pay() inside their transaction, which records the intent `processing`; no network call is made
 * while a transaction is open: after that transaction commits, debitOnRail calls the rail (with the
 * intent id as its idempotency reference) and applyDebit settles or fails the intent in a second
 * short transaction, under the source's and the intent's locks again. An intent left `processing`
 * (no definite answer from the rail, or a crash between the steps) is resolved by the reconciler
 * (RailReconciler: a Bull job and a sweep), which asks the rail; applyDebit is idempotent, so
 * whichever of the request, the reconciler or a gateway webhook comes first settles it once. Lock order (docs/architecture.md "Lock order"): source → token →
 * buyer agent → mandate → intent → approval, every one FOR NO KEY UPDATE so foreign-key checks
 * (KEY SHARE) never wait.
 * For a hosted-page payment the source is two rows, the quote then its hosted checkout
 * (src/public-pay), and there is no mandate (PayAuthority 'person_on_page').
 *
 * A payment waiting for a person is WaitingPayments' (src/payments/waiting-payments.service.ts),
 * which calls back into this pipeline once a person approved; this pipeline never calls it.
 */
@Injectable()
export class PaymentsService implements OnModuleInit {
  private readonly logger = new Logger(PaymentsService.name);

  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly intents: PaymentIntentRepository,
    private readonly mandates: MandateRepository,
    private readonly sql: Sql,
    private readonly transfers: RailTransferRepository,
    private readonly approvals: ApprovalsService,
    private readonly sources: PaymentSources,
    private readonly outbox: OutboxRepository,
    private readonly receipts: ReceiptsService,
    private readonly reconciler: RailReconciler,
    private readonly pacing: StatusCheckPacing,
    @Inject(PAYMENT_RAIL) private readonly rail: PaymentRail,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: BusinessMetrics,
  ) {}

  onModuleInit(): void {
    this.reconciler.register('intent', {
      claimDue: (olderThan, limit, id) => this.claimProcessing(olderThan, limit, id),
      resolve: async (id) => {
        await this.debitOnRail(PaymentAttempt.ofIntent(id), 'reconcile');
      },
    });
  }

  /**
   * Records the payment `attempt` (PaymentAttempt.start) is for, on the attempt and in the caller's
   * transaction (PayMode says how): declined by the buyer's rules, waiting for a person above the
   * approval threshold, or `processing` with the rail to be called after commit (carrying the
   * attempt) or by the caller (PaymentStarted).
   */
  async pay<Row, Answer>(
    attempt: PaymentAttempt<Row, Answer>,
    req: PayRequest,
    mode: PayMode = { rail: 'after_commit' },
  ): Promise<PaymentStarted> {
    const source = attempt.source;
    if (!source || attempt.intent) {
      throw new Error('pay() takes a new attempt (PaymentAttempt.start)');
    }
    const insert = (intent: PaymentIntent) =>
      mode.rail === 'after_commit' && mode.insert === 'with_commit'
        ? this.intents.insertAtCommit(intent)
        : this.intents.insert(intent);
    return this.tx.run(async () => {
      const now = this.clock.now();
      // Serialise payments of one buyer agent, so the daily cap cannot be overrun by a race; the
      // seller is read (not locked) and the mandate locked after the buyer by the same statement.
      // The day's spend is read by the next statement, written right behind the lock statement
      // (docs/architecture.md "Round trips"): Postgres runs it once the buyer's lock is held, on a
      // snapshot taken then, so it sees every payment committed under that lock.
      const { parties, spentTodayPaise } = await this.lockPayer(req, now);
      const { buyer, seller, mandate } = parties;
      if (!buyer || !seller || (req.mandateId !== null && !mandate)) {
        throw new Error('pay() called with unknown buyer, seller or mandate');
      }
      // The lifecycle gate: both sides active, read with the buyer's lock (a refusal rolls back
      // the caller's transaction, so nothing moves).
      const refusal = partyRefusal(buyer, seller);
      if (refusal) {
        throw refusal;
      }
      const onPage = req.authorisedBy === 'person_on_page';
      const scheduled = req.authorisedBy === 'recurring_notice';
      if (scheduled !== (source.kind === 'recurring')) {
        throw new Error('a recurring_notice authority is only for a recurring charge, and back');
      }
      const receiptContext = onPage
        ? { ...req.receiptContext, authorised_by: 'person_on_page' }
        : scheduled && req.authorisation
          ? { ...req.receiptContext, approval: req.authorisation }
          : req.receiptContext;
      const intent: PaymentIntent = Object.assign(new PaymentIntent(), {
        id: newId('pi'),
        buyerWorkspaceId: buyer.workspaceId,
        buyerAgentId: buyer.id,
        sellerWorkspaceId: seller.workspaceId,
        sellerAgentId: seller.id,
        amountPaise: req.amountPaise,
        amountRefundedPaise: 0,
        currency: 'INR',
        sourceKind: source.kind,
        sourceId: source.id,
        tokenId: req.tokenId,
        mandateId: mandate?.id ?? null,
        status: 'processing',
        declineCode: null,
        declineReason: null,
        description: req.description,
        receiptContext,
        rail: this.rail.name,
        railReference: null,
        receiptId: null,
        createdAt: now,
        updatedAt: now,
        settledAt: null,
      });
      const decline = this.newPaymentDecline(
        mandate,
        {
          sellerAgentId: seller.id,
          amountPaise: req.amountPaise,
          recurringCharge: scheduled,
        },
        now,
        spentTodayPaise,
      );
      if (decline) {
        Object.assign(intent, {
          status: 'declined',
          declineCode: decline.code,
          declineReason: decline.reason,
        });
        await insert(intent);
        attempt.recorded(intent, seller.name);
        await this.audit.record(
          buyer.workspaceId,
          { type: 'agent', id: buyer.id },
          'intent.declined',
          intent.id,
          { code: decline.code },
        );
        this.metrics.payment(intent);
        return { status: 'declined', intent, decline, sellerName: seller.name };
      }
      // The person on the hosted page is approving this very payment, and a scheduled charge was
      // authorised by its person during the notice when it needed it: no second approval.
      if (!onPage && !scheduled && req.amountPaise > this.config.approvalThresholdPaise) {
        intent.status = 'requires_approval';
        await insert(intent);
        attempt.recorded(intent, seller.name);
        const approval = await this.approvals.request({
          workspaceId: buyer.workspaceId,
          kind: 'payment',
          subjectId: intent.id,
          amountPaise: req.amountPaise,
          summary: `${buyer.name} wants to pay ${seller.name}: ${req.description}`,
        });
        await this.audit.record(
          buyer.workspaceId,
          { type: 'agent', id: buyer.id },
          'intent.requires_approval',
          intent.id,
          { approval_id: approval.id },
        );
        this.metrics.payment(intent);
        return { status: 'requires_approval', intent, approval, sellerName: seller.name };
      }
      await insert(intent);
      attempt.recorded(intent, seller.name);
      if (mode.rail === 'after_commit') {
        await this.tx.continueAfterCommit(() => this.debitOnRail(attempt, 'debit'));
      }
      return { status: 'processing', intent, sellerName: seller.name };
    });
  }

  /**
   * Sends pay()'s lock statement and spend read for the payment of delegated token `tokenId`, with
   * the parties taken from the token row by the statements themselves, so a caller can write them
   * right behind its own locks (the session's, the token's) and share their round trip
   * (docs/architecture.md "Round trips"). The caller passes the result to pay() as
   * `payerLocks`; pay() uses it only when the parties it locked are the request's and the day is
   * still `now`'s, and sends its own statements otherwise. Postgres runs the statements in the
   * order they were written, so the lock order holds.
   */
  sendPayerLocks(tokenId: string, now: Date): PayerLocks {
    const day = indianDay(now);
    const id = param(tokenId);
    const answer = Promise.all([
      this.lockParties(
        lockBuyerAndMandate(
          tokenParts.buyerOf(id),
          tokenParts.merchantOf(id),
          tokenParts.mandateOf(id),
        ),
      ),
      this.intents.committedOn(tokenParts.buyerOf(id), day),
    ]).then(([parties, spentTodayPaise]) => ({ parties, spentTodayPaise }));
    // A caller that fails before pay() never waits for it; its error, if any, is the transaction's.
    answer.catch(() => undefined);
    return { tokenId, day, answer };
  }

  /**
   * pay()'s parties locked and the day's spend read under the buyer's lock: what the caller sent
   * (sendPayerLocks) when it is for this payment and this IST day, else the same two statements
   * sent now.
   */
  private async lockPayer(
    req: PayRequest,
    now: Date,
  ): Promise<{ parties: LockedParties; spentTodayPaise: number }> {
    const sent = req.payerLocks;
    if (sent && sent.tokenId === req.tokenId && sent.day === indianDay(now)) {
      const answer = await sent.answer;
      const { buyer, seller, mandate } = answer.parties;
      if (
        buyer?.id === req.buyerAgentId &&
        seller?.id === req.sellerAgentId &&
        (mandate?.id ?? null) === req.mandateId
      ) {
        return answer;
      }
    }
    const [parties, spentTodayPaise] = await Promise.all([
      this.lockParties(
        lockBuyerAndMandate(
          param(req.buyerAgentId),
          param(req.sellerAgentId),
          param(req.mandateId),
        ),
      ),
      this.intents.spentOn(req.buyerAgentId, now, null),
    ]);
    return { parties, spentTodayPaise };
  }

  /**
   * One statement: the buyer agent FOR NO KEY UPDATE (the lock order's buyer step), the seller
   * agent read without a lock (a seller's payments must not serialise on it), and the mandate FOR
   * NO KEY UPDATE after the buyer (its scan waits for the buyer's row: the lock order's mandate
   * step). Both locked rows are their latest committed versions, however long the locks waited.
   */
  private async lockParties(statement: Statement<LockedPartyRow>): Promise<LockedParties> {
    const m = this.tx.manager;
    const rows = await this.sql.rows(statement);
    const find = (role: 'buyer' | 'seller'): AgentFacts | null => {
      const row = rows.find((r) => r.role === role);
      return row
        ? {
            id: row.id,
            workspaceId: row.workspaceId,
            name: row.name,
            agentStatus: row.agentStatus,
            workspaceStatus: row.workspaceStatus,
          }
        : null;
    };
    const mandate = rows.find((r) => r.role === 'mandate')?.mandate;
    return {
      buyer: find('buyer'),
      seller: find('seller'),
      mandate: mandate ? entityFromJson(m, Mandate, mandate) : null,
    };
  }

  /**
   * The second phase: calls the rail for a `processing` intent, with no transaction open, then
   * records the answer (applyDebit). `debit` charges (idempotent per intent); `reconcile` first
   * asks what the rail knows and only charges when it has never heard of the intent. An answer
   * that is not definite (pending, timeout, network error) leaves the intent `processing` and
   * schedules the reconciler. Returns the outcome, or null when the intent was no longer processing.
   * An attempt from pay() holds the intent exactly as the caller's transaction just committed it
   * `processing` (docs/testing.md "Tests", "SQL budgets": no second read of it); one taken up later
   * holds only its id and the intent is read. The rail request uses only the intent's fixed fields,
   * and applyDebit decides again under the intent's lock.
   */
  async debitOnRail(
    attempt: PaymentAttempt,
    mode: 'debit' | 'reconcile' = 'debit',
  ): Promise<PayOutcome | null> {
    if (this.tx.active) {
      throw new Error('the rail is never called inside a database transaction');
    }
    const intentId = attempt.intentId;
    let intent = attempt.intent;
    if (!intent) {
      intent = await this.intents.find(intentId);
      if (intent) {
        attempt.read(intent);
      }
    }
    if (!intent || intent.status !== 'processing') {
      return null;
    }
    const req = railDebitRequest(intent);
    // An AutoPay debit is asked about within NPCI's limits (StatusCheckPacing).
    if (mode === 'reconcile' && !(await this.pacing.takeCheck(intent))) {
      return { status: 'processing', intent };
    }
    const askedAt = this.clock.now();
    let result: RailResult;
    try {
      if (mode === 'reconcile') {
        const known = await this.rail.debitStatus(req);
        result = known.status === 'unknown' ? await this.rail.debit(req) : known;
      } else {
        result = await this.rail.debit(req);
      }
    } catch (err) {
      // No definite answer: never a guess. The reconciler asks again.
      result = { status: 'pending', reference: null, message: (err as Error).message };
    }
    if (result.status === 'pending') {
      this.logger.warn(
        { intent_id: intentId, rail: this.rail.name, reason: result.message },
        'rail debit not final; left processing for the reconciler',
      );
      const delayMs =
        mode === 'reconcile'
          ? await this.pacing.afterPendingCheck(intent)
          : await this.pacing.afterDebit(intent, askedAt);
      if (delayMs !== null) {
        this.reconciler.schedule('intent', intentId, delayMs);
      }
      return { status: 'processing', intent };
    }
    return this.applyDebit(result, attempt);
  }

  /**
   * Records the rail's definite answer for a processing intent, in its own short transaction (or
   * the caller's): locks the source, then the intent (the documented order), writes the rail
   * transfer, and settles (signed receipt, intent.settled) or fails it, then tells the source.
   * Idempotent: an intent that is no longer processing is left as it is (settling a settled intent
   * is a no-op, and a failure after settlement changes nothing). A pending answer records nothing.
   * The attempt's source is read only when it holds just the intent's id (the source never changes).
   */
  async applyDebit(result: RailResult, attempt: PaymentAttempt): Promise<PayOutcome | null> {
    if (result.status === 'pending') {
      return null;
    }
    const intentId = attempt.intentId;
    return this.tx.run(async () => {
      const peek = attempt.source ?? (await this.sourceOf(intentId));
      if (!peek) {
        return null;
      }
      const source = this.sources.get(peek.kind);
      let intent: PaymentIntent | null;
      if (source?.lockStatement) {
        // The source and the intent locked by one statement, in that order.
        const locked = await this.intents.lockAfter(source.lockStatement.sql(peek.id), intentId);
        attempt.lockedSource(locked.source ? source.lockStatement.adopt(locked.source) : null);
        intent = locked.intent;
      } else {
        attempt.lockedSource(source ? await source.lock(peek.id) : null);
        intent = await this.intents.lock(intentId);
      }
      if (!intent || intent.status !== 'processing') {
        return null;
      }
      const outcome = await this.settle(
        intent,
        intent.receiptContext as Record<string, unknown>,
        result,
      );
      if (outcome.status === 'settled') {
        await source?.onSettled(outcome.intent, attempt);
      } else {
        await source?.onDeclined(outcome.intent, attempt);
      }
      return outcome;
    });
  }

  private async sourceOf(
    intentId: string,
  ): Promise<{ kind: PaymentIntent['sourceKind']; id: string } | null> {
    const intent = await this.intents.find(intentId);
    return intent ? { kind: intent.sourceKind, id: intent.sourceId } : null;
  }

  /**
   * The reconciler's claim: processing intents untouched for `olderThan` (their request has given
   * up on the rail or died), oldest first, taken with SKIP LOCKED and touched, so another instance
   * or the next sweep leaves them alone for another interval.
   */
  private claimProcessing(olderThan: Date, limit: number, id?: string): Promise<string[]> {
    return this.intents.claimProcessing(olderThan, limit, this.clock.now(), id);
  }

  /**
   * The decline pay() would answer right now, without writing or locking anything: for a page
   * that must say beforehand whether a payment can go ahead (the hosted payment page's
   * `payable`). The same rules on the same inputs as pay(); pay() decides again under its locks.
   */
  async previewDecline(
    req: PayAuthority & { buyerAgentId: string; sellerAgentId: string; amountPaise: number },
  ): Promise<Decline | null> {
    const mandate = req.mandateId === null ? null : await this.mandates.findById(req.mandateId);
    if (req.mandateId !== null && !mandate) {
      return { code: 'mandate_not_active', reason: `Mandate ${req.mandateId} does not exist` };
    }
    const now = this.clock.now();
    return this.newPaymentDecline(
      mandate,
      req,
      now,
      await this.intents.spentOn(req.buyerAgentId, now, null),
    );
  }

  /**
   * Records the rail's definite answer on a processing intent the caller holds locked: the rail
   * transfer, then on success the receipt and the intent.settled event, in this transaction.
   */
  private async settle(
    intent: PaymentIntent,
    receiptContext: Record<string, unknown>,
    result: Exclude<RailResult, { status: 'pending' }>,
  ): Promise<Exclude<PayOutcome, { status: 'processing' | 'requires_approval' }>> {
    const now = this.clock.now();
    // Nothing reads it back in this transaction: written with the commit's one statement.
    await this.transfers.insertDebitAtCommit({
      id: newId('trf'),
      intentId: intent.id,
      amountPaise: intent.amountPaise,
      status: result.status,
      failureCode: result.status === 'failed' ? result.failureCode : null,
      reference: result.reference,
      gatewayOrderId: result.ids?.orderId ?? null,
      gatewayPaymentId: result.ids?.paymentId ?? null,
      createdAt: now.toISOString(),
    });
    if (result.status === 'failed') {
      Object.assign(intent, {
        status: 'failed',
        declineCode: result.failureCode,
        declineReason: result.message,
        railReference: result.reference,
        updatedAt: now,
      });
      await this.intents.recordOutcomeAtCommit(intent);
      this.metrics.payment(intent);
      return {
        status: 'failed',
        intent,
        decline: { code: result.failureCode, reason: result.message },
      };
    }
    Object.assign(intent, {
      status: 'settled',
      railReference: result.reference,
      settledAt: now,
      updatedAt: now,
    });
    const receipt = await this.receipts.issueForPayment(intent, receiptContext);
    intent.receiptId = receipt.receiptId;
    // The receipt's chain, this outcome, the rail transfer, the event and the audit row are all
    // written by the commit's one statement (nothing reads them back in this transaction).
    await this.intents.recordOutcomeAtCommit(intent);
    await this.outbox.add({
      workspaceId: intent.sellerWorkspaceId,
      agentId: intent.sellerAgentId,
      type: 'intent.settled',
      subjectId: intent.id,
      data: {
        intent_id: intent.id,
        amount_paise: intent.amountPaise,
        currency: intent.currency,
        buyer_agent_id: intent.buyerAgentId,
        seller_agent_id: intent.sellerAgentId,
        source: { kind: intent.sourceKind, id: intent.sourceId },
        receipt_id: receipt.receiptId,
        rail_reference: result.reference,
        settled_at: now.toISOString(),
      },
    });
    await this.audit.record(
      intent.buyerWorkspaceId,
      { type: 'system', id: 'pipeline' },
      'intent.settled',
      intent.id,
      { receipt_id: receipt.receiptId },
    );
    this.metrics.payment(intent);
    return { status: 'settled', intent };
  }

  /**
   * The buyer's rules for a payment not yet recorded (pay() and previewDecline), with what the
   * buyer agent committed today (`spentTodayPaise`, PaymentIntentRepository.spentOn).
   */
  private newPaymentDecline(
    mandate: Mandate | null,
    p: {
      sellerAgentId: string;
      amountPaise: number;
      recurringCharge?: boolean;
    },
    now: Date,
    spentTodayPaise: number,
  ): Decline | null {
    return evaluateBuyerRules({
      mandate,
      recurringCharge: p.recurringCharge,
      amountPaise: p.amountPaise,
      sellerAgentId: p.sellerAgentId,
      now,
      spentTodayPaise,
      dailyCapPaise: this.config.dailyCapPaise,
    });
  }
}

/** What pay() needs of the buyer and seller agents, their lifecycle states included. */
interface AgentFacts {
  id: string;
  workspaceId: string;
  name: string;
  agentStatus: AgentStatus;
  workspaceStatus: WorkspaceStatus;
}

/** What the rail is asked for an intent (the same on every call, so repeats are idempotent). */
export function railDebitRequest(intent: PaymentIntent): RailDebitRequest {
  return {
    intentId: intent.id,
    amountPaise: intent.amountPaise,
    mandateId: intent.mandateId,
    source: { kind: intent.sourceKind, id: intent.sourceId },
    description: intent.description,
  };
}

/**
 * pay()'s lock statement: the buyer agent FOR NO KEY UPDATE, the seller read, and the mandate FOR
 * NO KEY UPDATE after the buyer (its scan waits for the buyer's row), from their owners' parts.
 */
type LockedPartyRow = AgentFacts & {
  role: 'buyer' | 'seller' | 'mandate';
  mandate: Record<string, unknown> | null;
};

const lockBuyerAndMandate = fragmentStatement<LockedPartyRow, [SqlOperand, SqlOperand, SqlOperand]>(
  (buyer, seller, mandate) =>
    sql`WITH buyer AS (${agentParts.lockForPayment(buyer)}),
        md AS (${mandateParts.lockAfter(mandate, sql`EXISTS (SELECT 1 FROM buyer)`)})
   SELECT 'buyer' AS role, id, workspace_id AS "workspaceId", name, status AS "agentStatus",
          ${accountParts.workspaceStatusOf(col('buyer.workspace_id'))} AS "workspaceStatus",
          NULL::json AS mandate FROM buyer
   UNION ALL
   SELECT 'seller', id, workspace_id, name, status,
          ${accountParts.workspaceStatusOf(col('seller.workspace_id'))}, NULL
     FROM (${agentParts.facts(seller)}) AS seller
   UNION ALL
   SELECT 'mandate', NULL, NULL, NULL, NULL, NULL, row_to_json(md) FROM md`,
);
