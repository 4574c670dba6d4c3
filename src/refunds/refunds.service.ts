import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';

import { AgentRepository } from '../accounts/agent.repository';
import type { Approval } from '../approvals/approval.entity';
import { ApprovalDecision, ApprovalsService } from '../approvals/approvals.service';
import { AuditLog } from '../common/audit';
import type { AgentPrincipal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { formatRupees } from '../common/money';
import { decodeCursor, Page, toPage } from '../common/pagination';
import { Tx } from '../database/tx';
import { OrdersService } from '../orders/orders.service';
import { OutboxRepository } from '../outbox/outbox.repository';
import type { PaymentIntent } from '../payments/entities/payment-intent.entity';
import { PaymentIntentRepository } from '../payments/payment-intent.repository';
import { RailReconciler } from '../payments/rail-reconciler';
import { RailTransferRepository } from '../payments/rail-transfer.repository';
import { PAYMENT_RAIL, PaymentRail, RailCreditRequest, RailResult } from '../rails/payment-rail';
import { ReceiptsService } from '../receipts/receipts.service';
import type { RefundResponse } from './dto/refund.response';
import { Refund } from './refund.entity';
import { toRefundResponse } from './refund.mapper';
import { RefundRepository } from './refund.repository';
import { statusAfterRefusal } from './refund.state';
import { RailRefundLimits, Refundability, refundabilityOf, refundRefusal } from './refund-limits';
import { refundErrors } from './refunds.errors';

/**
 * Refunds (docs/seller-surface.md "Seller surface"; docs/architecture.md "State machines"): the seller agent asks,
 * a person in the seller's workspace always approves (ApprovalsService, kind 'refund'), then the
 * rail credits and the intent's receipt chain records it. Concurrent requests on one intent
 * serialise on the intent row lock, so the sum of pending, processing and succeeded refunds never
 * exceeds the amount paid.
 *
 * No rail call inside a transaction: an approved refund is committed `processing` with the
 * decision; after commit creditOnRail asks the rail to pay it out (idempotent per refund id) and
 * applyCredit records a definite answer in a second short transaction (intent → refund locks). A
 * credit the rail has not finished (the gateway's refund still pending, a timeout) stays
 * `processing` until a gateway webhook (src/gateway) or the reconciler (RailReconciler) brings the
 * answer; applyCredit is idempotent, so whichever comes first records it once.
 */
@Injectable()
export class RefundsService implements OnModuleInit {
  private readonly logger = new Logger(RefundsService.name);

  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly refunds: RefundRepository,
    private readonly intents: PaymentIntentRepository,
    private readonly agents: AgentRepository,
    private readonly transfers: RailTransferRepository,
    private readonly approvals: ApprovalsService,
    private readonly outbox: OutboxRepository,
    private readonly receipts: ReceiptsService,
    private readonly orders: OrdersService,
    private readonly reconciler: RailReconciler,
    @Inject(PAYMENT_RAIL) private readonly rail: PaymentRail,
  ) {}

  onModuleInit(): void {
    this.approvals.registerHandler('refund', {
      prepare: (approval) => this.lockForDecision(approval.subjectId),
      decided: (approval, decision) => this.onDecided(approval, decision),
    });
    this.reconciler.register('refund', {
      claimDue: (olderThan, limit, id) =>
        this.refunds.claimProcessing(olderThan, limit, this.clock.now(), id),
      resolve: async (id) => {
        await this.creditOnRail(id, 'reconcile');
      },
    });
  }

  /**
   * Second phase of an approved refund: asks the rail to pay it out, with no transaction open, and
   * records a definite answer (applyCredit). `reconcile` first asks what the rail knows and only
   * pays when it has never heard of the refund. A pending answer keeps the refund `processing`
   * (with the rail's refund id as its reference once known) and schedules the reconciler.
   */
  async creditOnRail(refundId: string, mode: 'credit' | 'reconcile' = 'credit'): Promise<void> {
    if (this.tx.active) {
      throw new Error('the rail is never called inside a database transaction');
    }
    const refund = await this.refunds.find(refundId);
    if (!refund || refund.status !== 'processing') {
      return;
    }
    const intent = await this.intents.find(refund.intentId);
    const req: RailCreditRequest = {
      intentId: refund.intentId,
      refundId: refund.id,
      amountPaise: refund.amountPaise,
      debitReference: intent?.railReference ?? null,
    };
    let result: RailResult;
    try {
      if (mode === 'reconcile') {
        const known = await this.rail.creditStatus(req);
        result = known.status === 'unknown' ? await this.rail.credit(req) : known;
      } else {
        result = await this.rail.credit(req);
      }
    } catch (err) {
      result = { status: 'pending', reference: null, message: (err as Error).message };
    }
    if (result.status === 'pending') {
      if (result.reference && result.reference !== refund.railReference) {
        await this.tx.run(() =>
          this.refunds.setProcessingReference(refund.id, result.reference as string),
        );
      }
      this.logger.warn(
        { refund_id: refund.id, rail: this.rail.name, reason: result.message },
        'rail credit not final; left processing for the reconciler',
      );
      this.reconciler.schedule('refund', refund.id);
      return;
    }
    await this.applyCredit(refund.id, result);
  }

  /**
   * Records the rail's definite answer for a processing refund (intent → refund locks), in its own
   * transaction or the caller's: the credit transfer, then succeeded (amount_refunded, receipt
   * entry, refund.succeeded) or failed (refund.failed). A refund no longer processing is left as
   * it is, so a repeat (webhook, reconciler, the request itself) changes nothing.
   */
  async applyCredit(refundId: string, result: RailResult): Promise<boolean> {
    if (result.status === 'pending') {
      return false;
    }
    return this.tx.run(async () => {
      const peek = await this.refunds.find(refundId);
      if (!peek) {
        return false;
      }
      await this.intents.lock(peek.intentId);
      const refund = await this.refunds.lock(refundId);
      if (!refund || refund.status !== 'processing') {
        return false;
      }
      await this.recordCredit(refund, result, this.clock.now());
      return true;
    });
  }

  /** A refund by id (no access check: for the gateway's webhooks, which carry our id as receipt). */
  findById(refundId: string): Promise<Refund | null> {
    return this.refunds.find(refundId);
  }

  /** A processing refund by the rail's reference (the gateway's refund id), for gateway webhooks. */
  findByRailReference(reference: string): Promise<Refund | null> {
    return this.refunds.findByRailReference(reference);
  }

  /** The seller agent of a settled intent asks a full (default) or partial refund. */
  async requestRefund(
    seller: AgentPrincipal,
    intentId: string,
    input: { amountPaise?: number; reason?: string },
  ): Promise<RefundResponse> {
    return this.tx.run(async () => {
      await this.partyIntent(seller.id, intentId);
      const intent = await this.intents.lock(intentId);
      if (!intent) {
        throw refundErrors.intentNotFound(intentId);
      }
      if (intent.sellerAgentId !== seller.id) {
        throw refundErrors.onlySeller();
      }
      if (intent.status !== 'settled') {
        throw refundErrors.notRefundable(intent.status);
      }
      const remaining = intent.amountPaise - (await this.refunds.committedPaise(intent.id));
      const amountPaise = input.amountPaise ?? remaining;
      // The rail's limits, before anything is stored or a person is asked (docs/gateway.md "Refund limits").
      const refusal = refundRefusal(this.refundLimits, {
        amountPaise: intent.amountPaise,
        leftPaise: remaining,
        requestedPaise: amountPaise,
        defaulted: input.amountPaise === undefined,
      });
      if (refusal) {
        throw refusal;
      }
      const now = this.clock.now();
      const refund: Refund = Object.assign(new Refund(), {
        id: newId('rf'),
        intentId: intent.id,
        sellerWorkspaceId: intent.sellerWorkspaceId,
        sellerAgentId: intent.sellerAgentId,
        buyerAgentId: intent.buyerAgentId,
        amountPaise,
        currency: intent.currency,
        reason: input.reason ?? null,
        status: 'pending_approval' as const,
        approvalId: null,
        decidedBy: null,
        railReference: null,
        failureCode: null,
        failureReason: null,
        createdAt: now,
        updatedAt: now,
        decidedAt: null,
        succeededAt: null,
      });
      await this.refunds.insert(refund);
      const approval = await this.approvals.request({
        workspaceId: intent.sellerWorkspaceId,
        kind: 'refund',
        subjectId: refund.id,
        amountPaise,
        summary: await this.summary(intent, refund),
      });
      refund.approvalId = approval.id;
      await this.refunds.update(refund.id, { approvalId: approval.id });
      await this.outbox.add({
        workspaceId: intent.sellerWorkspaceId,
        agentId: intent.sellerAgentId,
        type: 'refund.requested',
        subjectId: refund.id,
        data: { ...this.eventData(refund), approval_id: approval.id },
      });
      // The order of a checkout payment gets an order_update with the new adjustment.
      await this.orders.emitRefundChanged(refund);
      await this.audit.record(
        intent.sellerWorkspaceId,
        { type: 'agent', id: seller.id },
        'refund.requested',
        refund.id,
        {
          intent_id: intent.id,
          amount_paise: amountPaise,
          approval_id: approval.id,
        },
      );
      return toRefundResponse(refund);
    });
  }

  /**
   * What can still be refunded of each intent on this rail, and why not (docs/gateway.md "Refund limits"),
   * keyed by intent id: one query for all of them.
   */
  async refundabilityOf(
    intents: Pick<PaymentIntent, 'id' | 'status' | 'amountPaise'>[],
  ): Promise<Map<string, Refundability>> {
    const committed = await this.refunds.committedPaiseByIntent(
      intents.filter((i) => i.status === 'settled').map((i) => i.id),
    );
    return new Map(
      intents.map((i) => [
        i.id,
        refundabilityOf(this.refundLimits, {
          status: i.status,
          amountPaise: i.amountPaise,
          committedPaise: committed.get(i.id) ?? 0,
        }),
      ]),
    );
  }

  /** Refunds of an intent, for either party of it. */
  async listForParty(
    agentId: string,
    intentId: string,
    limit = 20,
    startingAfter?: string,
  ): Promise<Page<RefundResponse>> {
    await this.partyIntent(agentId, intentId);
    return this.listForIntent(intentId, limit, startingAfter);
  }

  /** Refunds of an intent without an access check: the caller (IntentsService) already did it. */
  async listForIntent(
    intentId: string,
    limit = 20,
    startingAfter?: string,
  ): Promise<Page<RefundResponse>> {
    const rows = await this.refunds.listForIntent(intentId, limit, decodeCursor(startingAfter));
    return toPage(rows, limit, toRefundResponse);
  }

  /** One refund, for the seller or the buyer of its intent; anyone else gets refund_not_found. */
  async getForParty(agentId: string, refundId: string): Promise<RefundResponse> {
    const refund = await this.refunds.find(refundId);
    if (!refund || (refund.sellerAgentId !== agentId && refund.buyerAgentId !== agentId)) {
      throw refundErrors.refundNotFound(refundId);
    }
    return toRefundResponse(refund);
  }

  /** Approval handler, step 1: lock order intent → refund (the approval row is locked after). */
  private async lockForDecision(refundId: string): Promise<void> {
    const peek = await this.refunds.find(refundId);
    if (!peek) {
      return;
    }
    await this.intents.lock(peek.intentId);
    await this.refunds.lock(refundId);
  }

  /** Approval handler, step 2: a person (or the timeout) decided; runs in the decision's transaction. */
  private async onDecided(approval: Approval, decision: ApprovalDecision): Promise<void> {
    const refund = await this.refunds.find(approval.subjectId);
    if (!refund || refund.status !== 'pending_approval') {
      return;
    }
    const now = this.clock.now();
    if (decision !== 'approved') {
      const status = statusAfterRefusal(decision);
      Object.assign(refund, {
        status,
        decidedAt: now,
        decidedBy: approval.decidedBy,
        updatedAt: now,
      });
      await this.refunds.update(refund.id, {
        status,
        decidedAt: now,
        decidedBy: approval.decidedBy,
        updatedAt: now,
      });
      await this.outbox.add({
        workspaceId: refund.sellerWorkspaceId,
        agentId: refund.sellerAgentId,
        type: `refund.${status}`,
        subjectId: refund.id,
        data: this.eventData(refund),
      });
      await this.orders.emitRefundChanged(refund);
      return;
    }
    await this.execute(refund, approval, now);
  }

  /**
   * Approved: the refund is recorded `processing` with the decision, and the rail is asked to pay
   * it out once the decision commits (creditOnRail, then applyCredit).
   */
  private async execute(refund: Refund, approval: Approval, now: Date): Promise<void> {
    const decided = {
      status: 'processing' as const,
      decidedAt: now,
      decidedBy: approval.decidedBy,
      updatedAt: now,
    };
    Object.assign(refund, decided);
    await this.refunds.update(refund.id, decided);
    await this.tx.continueAfterCommit(() => this.creditOnRail(refund.id));
  }

  /** Books a definite credit result on a processing refund the caller holds locked. */
  private async recordCredit(
    refund: Refund,
    result: Exclude<RailResult, { status: 'pending' }>,
    now: Date,
  ): Promise<void> {
    await this.transfers.insertCredit(
      { intentId: refund.intentId, refundId: refund.id, amountPaise: refund.amountPaise },
      result,
      now,
    );
    const decided = {
      updatedAt: now,
      railReference: result.reference,
    };
    if (result.status === 'failed') {
      Object.assign(refund, decided, {
        status: 'failed',
        failureCode: result.failureCode,
        failureReason: result.message,
      });
      await this.refunds.update(refund.id, {
        ...decided,
        status: 'failed',
        failureCode: result.failureCode,
        failureReason: result.message,
      });
      await this.outbox.add({
        workspaceId: refund.sellerWorkspaceId,
        agentId: refund.sellerAgentId,
        type: 'refund.failed',
        subjectId: refund.id,
        data: this.eventData(refund),
      });
      await this.orders.emitRefundChanged(refund);
      return;
    }
    Object.assign(refund, decided, { status: 'succeeded', succeededAt: now });
    await this.refunds.update(refund.id, { ...decided, status: 'succeeded', succeededAt: now });
    const refundedTotal = await this.intents.addRefunded(refund.intentId, refund.amountPaise, now);
    const intent = await this.intents.find(refund.intentId);
    let receiptSeq: number | null = null;
    if (intent?.receiptId) {
      const entry = await this.receipts.append(intent.receiptId, {
        type: 'refund.succeeded',
        intent_id: refund.intentId,
        refund_id: refund.id,
        amount_paise: refund.amountPaise,
        amount_refunded_paise: refundedTotal,
        currency: refund.currency,
        reason: refund.reason,
        approval_id: refund.approvalId,
        rail: this.rail.name,
        rail_reference: result.reference,
        succeeded_at: now.toISOString(),
      });
      receiptSeq = entry.seq;
    }
    await this.outbox.add({
      workspaceId: refund.sellerWorkspaceId,
      agentId: refund.sellerAgentId,
      type: 'refund.succeeded',
      subjectId: refund.id,
      data: {
        ...this.eventData(refund),
        amount_refunded_paise: refundedTotal,
        receipt_id: intent?.receiptId ?? null,
        receipt_seq: receiptSeq,
        rail_reference: result.reference,
      },
    });
    await this.orders.emitRefundChanged(refund);
  }

  /** This rail's refund limits (docs/gateway.md "Refund limits"). */
  private get refundLimits(): RailRefundLimits {
    return { ...this.rail.refundLimits, rail: this.rail.name };
  }

  /** 404 unless agentId is the seller or the buyer of the intent (no existence leak). */
  private async partyIntent(agentId: string, intentId: string): Promise<PaymentIntent> {
    const intent = await this.intents.find(intentId);
    if (!intent || (intent.sellerAgentId !== agentId && intent.buyerAgentId !== agentId)) {
      throw refundErrors.intentNotFound(intentId);
    }
    return intent;
  }

  private async summary(intent: PaymentIntent, refund: Refund): Promise<string> {
    const [seller, buyer] = await Promise.all([
      this.agents.nameOf(intent.sellerAgentId),
      this.agents.nameOf(intent.buyerAgentId),
    ]);
    const what = refund.amountPaise === intent.amountPaise ? 'a full refund' : 'a partial refund';
    const why = refund.reason ? ` Reason: ${refund.reason}` : '';
    return `${seller} asks ${what} of ${formatRupees(refund.amountPaise)} (of ${formatRupees(intent.amountPaise)}) to ${buyer} for payment ${intent.id}.${why}`;
  }

  private eventData(refund: Refund): Record<string, unknown> {
    return {
      refund_id: refund.id,
      intent_id: refund.intentId,
      amount_paise: refund.amountPaise,
      currency: refund.currency,
      status: refund.status,
      reason: refund.reason,
      buyer_agent_id: refund.buyerAgentId,
      seller_agent_id: refund.sellerAgentId,
    };
  }
}
