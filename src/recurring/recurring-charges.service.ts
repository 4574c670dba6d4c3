import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';

import { canSell } from '../accounts/entities/agent.entity';
import {
  CLOSED_BUYER,
  CLOSED_SELLER,
  EndedForClosure,
  PartyClosure,
} from '../accounts/party-closure.service';
import type { Approval } from '../approvals/approval.entity';
import {
  ApprovalDecision,
  ApprovalsService,
  ApprovalWithdrawn,
} from '../approvals/approvals.service';
import { AuditActor, AuditLog } from '../common/audit';
import type { AgentPrincipal, ApiKeyPrincipal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { formatRupees } from '../common/money';
import { decodeCursor, Page, toPage } from '../common/pagination';
import { Sweeper } from '../common/sweeper/sweeper';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { Tx } from '../database/tx';
import { MandatesService } from '../mandates/mandates.service';
import { OutboxRepository } from '../outbox/outbox.repository';
import type { PaymentIntent } from '../payments/entities/payment-intent.entity';
import { partyRefusalOf } from '../payments/party-gate';
import { PaymentAttempt } from '../payments/payment-attempt';
import { PaymentSources } from '../payments/payment-sources';
import { PaymentsService } from '../payments/payments.service';
import { formatIst } from '../web/local-time';
import { AutopayNotices, PRE_DEBIT_NOTICE_EVENT } from './autopay-notices';
import {
  AFA_THRESHOLD_PAISE,
  chargeCycle,
  inBlockedWindow,
  nextAllowedInstant,
  scheduledDebitAt,
} from './autopay-schedule';
import { ChargeResponse } from './dto/charge.dto';
import { recurringErrors } from './recurring.errors';
import { ChargeAuthorisation, RecurringCharge } from './recurring-charge.entity';
import { RecurringChargeRepository } from './recurring-charge.repository';
import {
  cycleEnded,
  initialChargeStatus,
  isCancellable,
  isDue,
  statusAfterIntent,
  statusAfterRefusal,
} from './recurring-charge.state';
import { RecurringDebitProducer } from './recurring-debit.producer';

/** Event to the buyer's endpoints when a charge is cancelled before its debit. */
export const CHARGE_CANCELLED_EVENT = 'recurring.charge_cancelled';

export type ChargeCaller = ApiKeyPrincipal | AgentPrincipal;
const YEAR_MS = 365 * 86_400_000;

export interface ScheduleChargeInput {
  amountPaise: number;
  description: string;
  /** Why the seller debits, named in the notice; absent: the description. */
  reason?: string;
  /** The seller's wish: not before this instant (still ≥ 24 h after the notice, outside the windows). */
  debitAfter?: Date;
}

/**
 * Recurring payments on UPI AutoPay mandates (docs/recurring.md "Recurring payments (UPI AutoPay)"). A seller
 * on a recurring mandate's payee list schedules a charge; scheduling IS the pre-debit notice (to
 * the person in the app at /app/autopay and as `recurring.pre_debit_notice` to the buyer's webhook
 * endpoints, with the exact amount, the debit time and how to cancel). The debit is attempted by a
 * delayed Bull job at `debit_at` (≥ 24 h after the notice, outside AUTOPAY_BLOCKED_WINDOWS_IST),
 * with a sweep as the safety net, and goes through the one payment pipeline (source kind
 * `recurring`), ending on a signed receipt and `intent.settled` to the seller.
 * - At most one live or settled charge per billing cycle (a unique index; src/recurring/
 *   autopay-schedule.ts computes the cycle), so at most one successful debit per cycle.
 * - Above the approval threshold the person authorises the debit during the notice (an approval of
 *   kind `recurring_charge`); above ₹15,000 that authorisation is UPI's additional factor
 *   (`upi_afa`). Not authorised by its debit time, the charge waits; not by the end of its cycle or
 *   mandate, it expires. The pipeline then asks no second approval.
 * - Cancelled (buyer, person or seller) before the debit, nothing is debited; a revoked or ended
 *   mandate cancels its charges (the sweep, in the lock order charge → mandate).
 * Lock order: the charge is the payment's source, first (docs/architecture.md "Lock order").
 */
@Injectable()
export class RecurringChargesService implements OnModuleInit {
  private readonly logger = new Logger(RecurringChargesService.name);

  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly charges: RecurringChargeRepository,
    private readonly mandates: MandatesService,
    private readonly payments: PaymentsService,
    private readonly sources: PaymentSources,
    private readonly approvals: ApprovalsService,
    private readonly outbox: OutboxRepository,
    private readonly sweeper: Sweeper,
    private readonly notices: AutopayNotices,
    private readonly debitJobs: RecurringDebitProducer,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly closure: PartyClosure,
  ) {}

  onModuleInit(): void {
    this.closure.register('recurring-charges', 40, (w) => this.cancelForClosure(w.workspaceId));
    this.sources.register('recurring', {
      lock: (id, opts) => this.charges.lock(id, opts),
      onSettled: (intent) => this.onIntentOutcome(intent),
      onDeclined: (intent) => this.onIntentOutcome(intent),
    });
    this.approvals.registerHandler('recurring_charge', {
      prepare: async (approval) => {
        await this.charges.lock(approval.subjectId);
      },
      decided: (approval, decision) => this.onAuthorisation(approval, decision),
    });
    // The delayed job is the fast path; this sweep is the net for a job lost with Redis, for a
    // charge authorised after its debit time, and for charges whose mandate or cycle ended.
    this.sweeper.register('recurring-charges-due', () => this.runDue(), { everyMs: 5000 });
    // A first debit scheduled with the registration goes ahead (or ends) once the person decides
    // on the mandate; the sweep is the net (dueIds).
    this.mandates.onAuthorised((m) => this.afterMandateDecided(m.id));
    this.mandates.onEnded((m) => this.afterMandateDecided(m.id));
  }

  /**
   * What the person must do before this amount is debited. The mandate's first debit always
   * needs their authentication (DOMAIN.md 12a), given as the same approval in the app.
   */
  authorisationFor(amountPaise: number, firstDebit = false): ChargeAuthorisation {
    if (amountPaise > AFA_THRESHOLD_PAISE) {
      return 'upi_afa';
    }
    return amountPaise > this.config.approvalThresholdPaise || firstDebit ? 'approval' : 'none';
  }

  private async afterMandateDecided(mandateId: string): Promise<void> {
    const c = await this.charges.findAwaitingRegistration(mandateId);
    if (c) {
      await this.attempt(c.id);
    }
  }

  /** POST /v1/pay/mandates/:id/charges: a seller agent on the mandate's payee list. */
  async schedule(
    caller: ChargeCaller,
    mandateId: string,
    input: ScheduleChargeInput,
  ): Promise<ChargeResponse> {
    if (caller.kind !== 'agent' || !canSell(caller.role)) {
      throw recurringErrors.notASeller();
    }
    const now = this.clock.now();
    if (input.debitAfter && input.debitAfter.getTime() > now.getTime() + YEAR_MS) {
      throw recurringErrors.debitAfterTooLate();
    }
    return this.tx.run(async () => {
      const mandate = await this.mandates.findForChargeLocked(mandateId);
      if (!mandate) {
        throw recurringErrors.mandateNotFound(mandateId);
      }
      if (mandate.kind !== 'recurring' || !mandate.billingCycle) {
        throw recurringErrors.notRecurring(mandateId);
      }
      if (!mandate.payeeAgentIds?.includes(caller.id)) {
        throw recurringErrors.sellerNotOnMandate(mandateId);
      }
      const status = this.mandates.statusOf(mandate);
      // A first debit may come with the registration: scheduled while the mandate awaits the
      // person, shown on its authorisation page, authorised with it (one per mandate).
      const withRegistration =
        status === 'pending_authorisation' &&
        (await this.charges.serialiseFirstDebit(mandate.id)) &&
        !(await this.charges.hasAny(mandate.id));
      if (status !== 'active' && !withRegistration) {
        throw recurringErrors.mandateNotActive(mandateId, status);
      }
      if (input.amountPaise > mandate.perPaymentCapPaise) {
        throw recurringErrors.aboveCap(mandate.perPaymentCapPaise);
      }
      const windows = this.config.autopay.blockedWindowsIst;
      const lead = this.config.autopay.noticeLeadMs;
      let debitAt = scheduledDebitAt(now, windows, lead);
      if (input.debitAfter && input.debitAfter > debitAt) {
        debitAt = nextAllowedInstant(input.debitAfter, windows);
      }
      if (debitAt < mandate.validFrom) {
        throw recurringErrors.notStarted(mandate.validFrom);
      }
      if (debitAt >= mandate.validUntil) {
        throw recurringErrors.endsBeforeDebit(debitAt, mandate.validUntil);
      }
      // as_presented: no cycle (index null), so the one-per-cycle index never applies.
      const cycle = chargeCycle(
        mandate.billingCycle,
        mandate.validFrom,
        mandate.validUntil,
        debitAt,
      );
      const firstDebit = withRegistration || !(await this.charges.hasSettled(mandate.id));
      const authorisation: ChargeAuthorisation = withRegistration
        ? 'with_registration'
        : this.authorisationFor(input.amountPaise, firstDebit);
      const reason = input.reason ?? input.description;
      const id = newId('rch');
      const sellerName = (await this.mandates.agentNames([caller.id])).get(caller.id) ?? caller.id;
      // The approval first, so the charge is inserted with it (a taken cycle rolls both back).
      const approval =
        authorisation === 'none' || authorisation === 'with_registration'
          ? null
          : await this.approvals.request({
              workspaceId: mandate.workspaceId,
              kind: 'recurring_charge',
              subjectId: id,
              amountPaise: input.amountPaise,
              summary: `${sellerName} will debit ${formatRupees(input.amountPaise)} on ${formatIst(debitAt)} under your AutoPay mandate${mandate.description ? ` "${mandate.description}"` : ''} (${mandate.id}). Reason: ${reason}.${authorisation === 'upi_afa' ? ' Above ₹15,000 UPI needs your additional authorisation for every debit.' : ''}${firstDebit ? ' This is the first debit under the mandate: it needs your authentication whatever its amount.' : ''}`,
              expiresAt: new Date(Math.min(cycle.end.getTime(), mandate.validUntil.getTime())),
            });
      const charge: RecurringCharge = Object.assign(new RecurringCharge(), {
        id,
        mandateId: mandate.id,
        buyerWorkspaceId: mandate.workspaceId,
        buyerAgentId: mandate.buyerAgentId,
        sellerWorkspaceId: caller.workspaceId,
        sellerAgentId: caller.id,
        amountPaise: input.amountPaise,
        description: input.description,
        reason,
        upiMandateRef: await this.notices.upiMandateRef(mandate.id),
        firstDebit,
        alertedAt: null,
        receiptId: null,
        status: initialChargeStatus(authorisation),
        noticeAt: now,
        debitAt,
        cycleIndex: cycle.index,
        cycleStart: cycle.start,
        cycleEnd: cycle.end,
        authorisation,
        approvalId: approval?.id ?? null,
        authorisedBy: null,
        authorisedAt: null,
        intentId: null,
        failureCode: null,
        failureReason: null,
        cancelledBy: null,
        cancelledAt: null,
        createdAt: now,
        updatedAt: now,
      });
      if (!(await this.charges.insertIfCycleFree(charge))) {
        // Only a fixed cycle can be taken: a charge without one (as_presented) never conflicts.
        const holder = await this.charges.findCycleHolder(mandate.id, cycle.index ?? -1);
        throw recurringErrors.cycleTaken(holder?.id ?? null);
      }
      await this.outbox.add({
        workspaceId: charge.buyerWorkspaceId,
        agentId: charge.buyerAgentId,
        type: PRE_DEBIT_NOTICE_EVENT,
        subjectId: charge.id,
        data: this.notices.noticeData(charge, sellerName),
      });
      await this.audit.record(
        charge.buyerWorkspaceId,
        { type: 'agent', id: caller.id },
        'recurring_charge.scheduled',
        charge.id,
        {
          mandate_id: mandate.id,
          amount_paise: charge.amountPaise,
          debit_at: debitAt.toISOString(),
          cycle_index: cycle.index,
          authorisation,
          first_debit: firstDebit,
        },
      );
      this.enqueueAfterCommit(charge);
      return this.toResponse(charge);
    });
  }

  /** A charge the caller may see (the buyer's side or the seller's); 404 otherwise. */
  async get(caller: ChargeCaller, mandateId: string, chargeId: string): Promise<ChargeResponse> {
    const charge = await this.charges.get(chargeId);
    if (!charge || charge.mandateId !== mandateId || !this.mayView(caller, charge)) {
      throw recurringErrors.chargeNotFound(chargeId);
    }
    return this.toResponse(charge);
  }

  /** The mandate's charges the caller may see, newest first. */
  async list(
    caller: ChargeCaller,
    mandateId: string,
    q: { limit?: number; startingAfter?: string },
  ): Promise<Page<ChargeResponse>> {
    const limit = q.limit ?? 20;
    const mandate = await this.mandates.findAnyById(mandateId);
    if (!mandate) {
      throw recurringErrors.mandateNotFound(mandateId);
    }
    const buyerSide =
      caller.workspaceId === mandate.workspaceId &&
      (caller.kind === 'api_key' || caller.id === mandate.buyerAgentId);
    const rows = await this.charges.page(
      buyerSide
        ? { mandateId }
        : caller.kind === 'agent'
          ? { mandateId, sellerAgentId: caller.id }
          : { mandateId, sellerWorkspaceId: caller.workspaceId },
      limit,
      decodeCursor(q.startingAfter),
    );
    return toPage(rows, limit, (c) => this.toResponse(c));
  }

  /** Buyer-side charges of a workspace for the person's app (upcoming first, then the rest). */
  listForBuyerWorkspace(workspaceId: string, limit: number): Promise<RecurringCharge[]> {
    return this.charges.page({ buyerWorkspaceId: workspaceId }, limit, null);
  }

  async findForBuyerWorkspace(workspaceId: string, id: string): Promise<RecurringCharge | null> {
    const c = await this.charges.get(id);
    return c && c.buyerWorkspaceId === workspaceId ? c : null;
  }

  /** The first debit scheduled with a mandate's registration, while it waits for the person. */
  findAwaitingRegistration(mandateId: string): Promise<RecurringCharge | null> {
    return this.charges.findAwaitingRegistration(mandateId);
  }

  /** The charge of this mandate if the caller may see it; otherwise 404 (never telling which). */
  private async visibleCharge(caller: ChargeCaller, mandateId: string, chargeId: string) {
    const peek = await this.charges.get(chargeId);
    if (!peek || peek.mandateId !== mandateId || !this.mayView(caller, peek)) {
      throw recurringErrors.chargeNotFound(chargeId);
    }
    return peek;
  }

  /** POST …/charges/:id/cancel by the buyer's side or the seller (API). */
  async cancelByCaller(
    caller: ChargeCaller,
    mandateId: string,
    chargeId: string,
  ): Promise<ChargeResponse> {
    await this.visibleCharge(caller, mandateId, chargeId);
    return this.toResponse(await this.cancel(chargeId, { type: caller.kind, id: caller.id }));
  }

  /**
   * POST …/charges/:id/opt-out: the person's opt-out of this one debit, through the buyer's side
   * (the buyer agent's credential or an API key of the buyer's workspace); the seller cannot. The
   * mandate stays active. Opting out of a charge already cancelled answers it again.
   */
  async optOutByCaller(
    caller: ChargeCaller,
    mandateId: string,
    chargeId: string,
  ): Promise<ChargeResponse> {
    const peek = await this.visibleCharge(caller, mandateId, chargeId);
    if (!this.isBuyerSide(caller, peek)) {
      throw recurringErrors.optOutBuyerOnly();
    }
    return this.toResponse(
      await this.cancel(chargeId, { type: caller.kind, id: caller.id }, { optOut: true }),
    );
  }

  /**
   * The person opts out of one debit in the app (their workspace holds the mandate). A charge of
   * another workspace, or one already past opting out, is left as it is (the page shows where it
   * stands).
   */
  async cancelByPerson(workspaceId: string, chargeId: string, personId: string): Promise<void> {
    const peek = await this.findForBuyerWorkspace(workspaceId, chargeId);
    if (peek && isCancellable(peek.status)) {
      await this.cancel(chargeId, { type: 'person', id: personId }, { optOut: true });
    }
  }

  /**
   * Cancels a charge not yet debited: nothing will be debited for it, its approval (if waiting)
   * is withdrawn, and the buyer's endpoints hear `recurring.charge_cancelled`. Cancelling a
   * cancelled charge answers it again; one already debiting or debited is refused.
   */
  private async cancel(
    chargeId: string,
    actor: AuditActor,
    opts: { optOut?: boolean } = {},
  ): Promise<RecurringCharge> {
    return this.tx.run(async () => {
      const charge = await this.charges.lock(chargeId);
      if (!charge) {
        throw recurringErrors.chargeNotFound(chargeId);
      }
      if (charge.status === 'cancelled') {
        return charge;
      }
      if (!isCancellable(charge.status)) {
        throw recurringErrors.notCancellable(chargeId, charge.status);
      }
      if (opts.optOut) {
        await this.end(charge, 'cancelled', actor, {
          code: 'opted_out',
          reason: `The person opted out of this debit${actor.type === 'person' ? ' in the app' : ` (through the buyer's ${actor.type === 'agent' ? 'agent' : 'API key'})`}; the mandate stays active`,
        });
        return charge;
      }
      await this.end(charge, 'cancelled', actor, {
        code: 'cancelled',
        reason: `Cancelled by ${actor.type === 'person' ? 'a person of the workspace' : actor.type === 'agent' && actor.id === charge.sellerAgentId ? 'the seller' : `the buyer's ${actor.type}`}`,
      });
      return charge;
    });
  }

  /**
   * Sweep and job entry: looks at every charge whose debit time has come or whose mandate or
   * cycle ended, one transaction each.
   */
  async runDue(limit = 50): Promise<number> {
    const ids = await this.charges.dueIds(this.clock.now(), limit);
    let done = 0;
    for (const id of ids) {
      try {
        done += (await this.attempt(id)) === 'skipped' ? 0 : 1;
      } catch (err) {
        this.logger.warn(
          { charge_id: id, err: (err as Error).message },
          'recurring charge attempt failed; the sweep tries again',
        );
      }
    }
    return done;
  }

  /**
   * One charge, under its lock (skipped when another instance holds it): ends it when its mandate
   * or cycle ended; defers it out of a blocked window; otherwise, when due, debits it through the
   * pipeline (which calls the rail once this transaction commits).
   */
  async attempt(
    chargeId: string,
  ): Promise<'skipped' | 'not_due' | 'deferred' | 'ended' | 'debiting' | 'declined'> {
    return this.tx.run(async () => {
      const charge = await this.charges.lock(chargeId, { skipLocked: true });
      if (!charge || !isCancellable(charge.status)) {
        return 'skipped';
      }
      const now = this.clock.now();
      const mandate = await this.mandates.findAnyById(charge.mandateId);
      const mandateStatus = mandate ? this.mandates.statusOf(mandate) : 'revoked';
      const withRegistration =
        charge.status === 'awaiting_authorisation' && charge.authorisation === 'with_registration';
      if (withRegistration && mandateStatus === 'pending_authorisation') {
        if (!cycleEnded(charge, now)) {
          return 'not_due';
        }
        await this.end(charge, 'expired', SYSTEM, {
          code: 'cycle_ended',
          reason:
            'Nobody authorised the mandate, and with it this first debit, before its cycle ended',
        });
        return 'ended';
      }
      if (withRegistration && mandateStatus === 'active' && mandate?.authorisedAt) {
        // The person's authorisation of the mandate, on the page that showed this debit, is this
        // debit's authorisation too (one AFA for registration and first debit, DOMAIN.md 12a).
        await this.move(
          charge,
          {
            status: 'scheduled',
            authorisedBy: mandate.authorisedBy,
            authorisedAt: mandate.authorisedAt,
          },
          now,
        );
        this.enqueueAfterCommit(charge);
      }
      if (mandateStatus !== 'active') {
        await this.end(charge, 'cancelled', SYSTEM, {
          code: `mandate_${mandateStatus}`,
          reason: `The mandate was ${mandateStatus} before the debit`,
        });
        return 'ended';
      }
      if (cycleEnded(charge, now)) {
        await this.end(charge, 'expired', SYSTEM, {
          code: 'cycle_ended',
          reason:
            charge.status === 'awaiting_authorisation'
              ? 'Nobody authorised the debit before its billing cycle ended'
              : 'The billing cycle ended before the debit could be made',
        });
        return 'ended';
      }
      if (!isDue(charge, now)) {
        return 'not_due';
      }
      const windows = this.config.autopay.blockedWindowsIst;
      if (inBlockedWindow(now, windows)) {
        const next = nextAllowedInstant(now, windows);
        if (cycleEnded(charge, next)) {
          await this.end(charge, 'expired', SYSTEM, {
            code: 'cycle_ended',
            reason: 'The billing cycle ends before the next allowed debit time',
          });
          return 'ended';
        }
        await this.move(charge, { debitAt: next }, now);
        this.enqueueAfterCommit(charge);
        return 'deferred';
      }
      // pay()'s lifecycle gate asked first (docs/architecture.md "Party lifecycle"): a party that
      // may not transact ends the charge declined, never an error the job retries forever.
      const party = await partyRefusalOf(
        this.tx.manager,
        charge.buyerAgentId,
        charge.sellerAgentId,
      );
      if (party) {
        return this.declineUnavailable(charge, party.code, party.message, now);
      }
      return this.debit(charge, now);
    });
  }

  /** A due charge whose seller or buyer may not transact: declined with no intent, the person told. */
  private async declineUnavailable(
    charge: RecurringCharge,
    code: string,
    reason: string,
    now: Date,
  ): Promise<'declined'> {
    await this.move(charge, { status: 'declined', failureCode: code, failureReason: reason }, now);
    await this.notices.postDebitAlert(charge, null);
    await this.audit.record(
      charge.buyerWorkspaceId,
      SYSTEM,
      'recurring_charge.declined',
      charge.id,
      {
        code,
      },
    );
    return 'declined';
  }

  /**
   * A workspace closes (PartyClosure): its live charges, as seller and as buyer, are cancelled
   * (the buyer's endpoints hear `recurring.charge_cancelled`, an authorisation waiting is
   * withdrawn, and the buyer's person reads that the debit will not happen); the seller of a
   * closed buyer's charge is told by `party.closed`.
   */
  private async cancelForClosure(workspaceId: string): Promise<EndedForClosure[]> {
    const ended: EndedForClosure[] = [];
    for (const id of await this.charges.liveOfWorkspace(workspaceId)) {
      const charge = await this.charges.lock(id);
      if (!charge || !isCancellable(charge.status)) {
        continue;
      }
      const sellerClosed = charge.sellerWorkspaceId === workspaceId;
      const why = sellerClosed ? CLOSED_SELLER : CLOSED_BUYER;
      const reason = `${why.reason}; the debit of ${formatRupees(charge.amountPaise)} on ${formatIst(charge.debitAt)} will not happen`;
      await this.end(charge, 'cancelled', LIFECYCLE, { code: why.code, reason });
      ended.push({
        kind: 'recurring_charge',
        id: charge.id,
        counterparty: sellerClosed
          ? { workspaceId: charge.buyerWorkspaceId, agentId: charge.buyerAgentId }
          : { workspaceId: charge.sellerWorkspaceId, agentId: charge.sellerAgentId },
        words: `${reason}.`,
      });
    }
    return ended;
  }

  private async debit(charge: RecurringCharge, now: Date): Promise<'debiting' | 'declined'> {
    const outcome = await this.payments.pay(
      PaymentAttempt.start({ kind: 'recurring', id: charge.id }),
      {
        mandateId: charge.mandateId,
        authorisedBy: 'recurring_notice',
        authorisation:
          charge.authorisation !== 'none' && charge.approvalId && charge.authorisedAt
            ? {
                approval_id: charge.approvalId,
                decided_by: charge.authorisedBy,
                decided_at: charge.authorisedAt.toISOString(),
              }
            : null,
        buyerAgentId: charge.buyerAgentId,
        sellerAgentId: charge.sellerAgentId,
        amountPaise: charge.amountPaise,
        tokenId: null,
        description: charge.description,
        receiptContext: {
          recurring_charge: {
            id: charge.id,
            mandate_id: charge.mandateId,
            notice_at: charge.noticeAt.toISOString(),
            debit_at: charge.debitAt.toISOString(),
            cycle: {
              index: charge.cycleIndex,
              start: charge.cycleStart.toISOString(),
              end: charge.cycleEnd.toISOString(),
            },
            authorisation: charge.authorisation,
            reason: charge.reason,
            first_debit: charge.firstDebit,
            ...(charge.authorisation === 'with_registration'
              ? {
                  authorised_with_registration: {
                    decided_by: charge.authorisedBy,
                    decided_at: charge.authorisedAt?.toISOString() ?? null,
                  },
                }
              : {}),
          },
        },
      },
    );
    if (outcome.status === 'declined') {
      await this.move(
        charge,
        {
          status: 'declined',
          intentId: outcome.intent.id,
          failureCode: outcome.decline.code,
          failureReason: outcome.decline.reason,
        },
        now,
      );
      await this.notices.postDebitAlert(charge, outcome.intent.receiptId ?? null);
      await this.audit.record(
        charge.buyerWorkspaceId,
        SYSTEM,
        'recurring_charge.declined',
        charge.id,
        {
          intent_id: outcome.intent.id,
          code: outcome.decline.code,
        },
      );
      return 'declined';
    }
    await this.move(charge, { status: 'processing', intentId: outcome.intent.id }, now);
    return 'debiting';
  }

  /**
   * The pipeline's outcome for the charge's intent (caller holds the charge's lock), then the
   * post-debit alert (once per charge).
   */
  private async onIntentOutcome(intent: PaymentIntent): Promise<void> {
    const now = this.clock.now();
    const status = statusAfterIntent(intent.status);
    if (status === 'settled') {
      await this.charges.update(intent.sourceId, {
        status,
        intentId: intent.id,
        updatedAt: now,
      });
    } else {
      await this.charges.update(intent.sourceId, {
        status,
        intentId: intent.id,
        failureCode: intent.declineCode,
        failureReason: intent.declineReason,
        updatedAt: now,
      });
    }
    const charge = await this.charges.get(intent.sourceId);
    if (charge) {
      await this.notices.postDebitAlert(charge, intent.receiptId);
    }
  }

  /** The person's answer on a charge's authorisation (caller holds the charge's lock). */
  private async onAuthorisation(
    approval: Approval,
    decision: ApprovalDecision,
  ): Promise<void | ApprovalWithdrawn> {
    const charge = await this.charges.get(approval.subjectId);
    if (!charge || charge.status !== 'awaiting_authorisation') {
      return;
    }
    const now = this.clock.now();
    if (decision === 'approved') {
      const mandate = await this.mandates.findAnyById(charge.mandateId);
      const status = mandate ? this.mandates.statusOf(mandate) : 'revoked';
      if (status !== 'active') {
        await this.end(
          charge,
          'cancelled',
          SYSTEM,
          { code: `mandate_${status}`, reason: `The mandate is ${status}` },
          { fromApproval: true },
        );
        return { withdrawn: `This debit can no longer go ahead: its mandate is ${status}.` };
      }
      await this.move(
        charge,
        { status: 'scheduled', authorisedBy: approval.decidedBy, authorisedAt: now },
        now,
      );
      this.enqueueAfterCommit(charge);
      return;
    }
    await this.end(
      charge,
      statusAfterRefusal(decision),
      decision === 'denied' && approval.decidedBy
        ? { type: 'person', id: approval.decidedBy }
        : SYSTEM,
      decision === 'denied'
        ? { code: 'authorisation_denied', reason: 'The person declined this debit' }
        : { code: 'authorisation_expired', reason: 'Nobody authorised this debit in time' },
      { fromApproval: true },
    );
  }

  /** Ends a charge before any debit (caller holds its lock); tells the buyer's endpoints. */
  private async end(
    charge: RecurringCharge,
    status: 'cancelled' | 'expired',
    actor: AuditActor,
    why: { code: string; reason: string },
    opts: { fromApproval?: boolean } = {},
  ): Promise<void> {
    const now = this.clock.now();
    const wasAwaiting = charge.status === 'awaiting_authorisation';
    await this.move(
      charge,
      {
        status,
        failureCode: why.code,
        failureReason: why.reason,
        cancelledBy: status === 'cancelled' ? `${actor.type}:${actor.id}` : null,
        cancelledAt: status === 'cancelled' ? now : null,
      },
      now,
    );
    if (wasAwaiting && !opts.fromApproval) {
      await this.approvals.withdraw('recurring_charge', charge.id, `${why.reason}.`);
    }
    await this.outbox.add({
      workspaceId: charge.buyerWorkspaceId,
      agentId: charge.buyerAgentId,
      type: CHARGE_CANCELLED_EVENT,
      subjectId: charge.id,
      data: {
        charge_id: charge.id,
        mandate_id: charge.mandateId,
        status,
        amount_paise: charge.amountPaise,
        reason_code: why.code,
        reason: why.reason,
      },
    });
    await this.audit.record(
      charge.buyerWorkspaceId,
      actor,
      `recurring_charge.${status}`,
      charge.id,
      {
        code: why.code,
      },
    );
  }

  /** Changes the locked charge, in memory and in its row (with updated_at). */
  private async move(
    charge: RecurringCharge,
    patch: Partial<RecurringCharge>,
    now: Date,
  ): Promise<void> {
    Object.assign(charge, patch, { updatedAt: now });
    await this.charges.update(charge.id, { ...patch, updatedAt: now });
  }

  /** The delayed job at debit_at (Bull's delay is relative; the clock may be moved in tests). */
  private enqueueAfterCommit(charge: RecurringCharge): void {
    if (charge.status !== 'scheduled') {
      return;
    }
    const delay = Math.max(0, charge.debitAt.getTime() - this.clock.now().getTime());
    this.tx.afterCommit(() =>
      this.debitJobs.enqueue({ chargeId: charge.id }, charge.debitAt, delay),
    );
  }

  private isBuyerSide(caller: ChargeCaller, c: RecurringCharge): boolean {
    return (
      caller.workspaceId === c.buyerWorkspaceId &&
      (caller.kind === 'api_key' || caller.id === c.buyerAgentId)
    );
  }

  private mayView(caller: ChargeCaller, c: RecurringCharge): boolean {
    const buyer =
      caller.workspaceId === c.buyerWorkspaceId &&
      (caller.kind === 'api_key' || caller.id === c.buyerAgentId);
    const seller =
      caller.workspaceId === c.sellerWorkspaceId &&
      (caller.kind === 'api_key' || caller.id === c.sellerAgentId);
    return buyer || seller;
  }

  toResponse(c: RecurringCharge): ChargeResponse {
    return {
      id: c.id,
      object: 'recurring_charge',
      mandate_id: c.mandateId,
      buyer_agent_id: c.buyerAgentId,
      seller_agent_id: c.sellerAgentId,
      amount_paise: c.amountPaise,
      currency: 'INR',
      description: c.description,
      reason: c.reason,
      mandate_reference: { id: c.mandateId, upi_mandate_ref: c.upiMandateRef },
      first_debit: c.firstDebit,
      status: c.status,
      notice_at: c.noticeAt.toISOString(),
      debit_at: c.debitAt.toISOString(),
      billing_cycle: {
        index: c.cycleIndex,
        start: c.cycleStart.toISOString(),
        end: c.cycleEnd.toISOString(),
      },
      authorisation: c.authorisation,
      authorised_at: c.authorisedAt ? c.authorisedAt.toISOString() : null,
      intent_id: c.intentId,
      failure_code: c.failureCode,
      failure_reason: c.failureReason,
      cancelled_at: c.cancelledAt ? c.cancelledAt.toISOString() : null,
      opt_out: isCancellable(c.status)
        ? { url: this.notices.optOutUrl(c), api: this.notices.optOutApi(c) }
        : null,
      created_at: c.createdAt.toISOString(),
    };
  }
}

const SYSTEM: AuditActor = { type: 'system', id: 'autopay' };
/** Who cancels a closed party's charges (PartyClosure). */
const LIFECYCLE: AuditActor = { type: 'system', id: 'lifecycle' };
