import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { Agent } from '../accounts/entities/agent.entity';
import { Approval } from '../approvals/approval.entity';
import { ApprovalDecision, ApprovalsService } from '../approvals/approvals.service';
import { AuditLog } from '../common/audit';
import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { Tx } from '../database/tx';
import { Mandate } from '../mandates/mandate.entity';
import { ReceiptsService } from '../receipts/receipts.service';
import { Decline, evaluateBuyerRules, startOfIndianDay } from './buyer-rules';
import { IntentSourceKind, PaymentIntent } from './entities/payment-intent.entity';
import { RailTransfer } from './entities/rail-transfer.entity';
import { OutboxService } from './outbox.service';
import { PAYMENT_RAIL, PaymentRail } from './payment-rail';
import { PaymentSources } from './payment-sources';
import { paymentErrors } from './payments.errors';

export interface PayRequest {
  buyerAgentId: string;
  sellerAgentId: string;
  amountPaise: number;
  mandateId: string;
  tokenId: string | null;
  source: { kind: IntentSourceKind; id: string };
  description: string;
  /** Extra facts recorded on the receipt (checkout session, line items, quote…). */
  receiptContext: Record<string, unknown>;
}

export type PayOutcome =
  | { status: 'settled'; intent: PaymentIntent }
  | { status: 'requires_approval'; intent: PaymentIntent; approval: Approval }
  | { status: 'declined' | 'failed'; intent: PaymentIntent; decline: Decline | { code: string; reason: string } };

/**
 * The one payment pipeline (spec §1): every checkout, quote payment and hosted-page payment
 * becomes an intent that passes the buyer's rules, asks a person above the threshold, settles on
 * the rail and ends on a signed receipt with an outbox event. Callers run it inside their
 * transaction; lock order is source → buyer agent → mandate → intent.
 */
@Injectable()
export class PaymentsService implements OnModuleInit {
  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly approvals: ApprovalsService,
    private readonly sources: PaymentSources,
    private readonly outbox: OutboxService,
    private readonly receipts: ReceiptsService,
    @Inject(PAYMENT_RAIL) private readonly rail: PaymentRail,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.approvals.registerHandler('payment', {
      prepare: (approval) => this.lockForApproval(approval.subjectId),
      decided: (approval, decision) => this.onApprovalDecided(approval, decision),
    });
  }

  async pay(req: PayRequest): Promise<PayOutcome> {
    return this.tx.run(async (m) => {
      const now = this.clock.now();
      // Serialise payments of one buyer agent, so the daily cap cannot be overrun by a race.
      const buyer = await m.findOne(Agent, { where: { id: req.buyerAgentId }, lock: { mode: 'pessimistic_write' } });
      const seller = await m.findOneBy(Agent, { id: req.sellerAgentId });
      const mandate = await m.findOne(Mandate, { where: { id: req.mandateId }, lock: { mode: 'pessimistic_write' } });
      if (!buyer || !seller || !mandate) {
        throw new Error('pay() called with unknown buyer, seller or mandate');
      }
      const intent: PaymentIntent = Object.assign(new PaymentIntent(), {
        id: newId('pi'),
        buyerWorkspaceId: buyer.workspaceId,
        buyerAgentId: buyer.id,
        sellerWorkspaceId: seller.workspaceId,
        sellerAgentId: seller.id,
        amountPaise: req.amountPaise,
        amountRefundedPaise: 0,
        currency: 'INR',
        sourceKind: req.source.kind,
        sourceId: req.source.id,
        tokenId: req.tokenId,
        mandateId: mandate.id,
        status: 'processing',
        declineCode: null,
        declineReason: null,
        description: req.description,
        receiptContext: req.receiptContext,
        rail: this.rail.name,
        railReference: null,
        receiptId: null,
        createdAt: now,
        updatedAt: now,
        settledAt: null,
      });
      const decline = evaluateBuyerRules({
        mandate,
        amountPaise: req.amountPaise,
        sellerAgentId: seller.id,
        now,
        spentTodayPaise: await this.spentToday(buyer.id, now),
        dailyCapPaise: this.config.dailyCapPaise,
      });
      if (decline) {
        Object.assign(intent, { status: 'declined', declineCode: decline.code, declineReason: decline.reason });
        await m.insert(PaymentIntent, intent);
        await this.audit.record(buyer.workspaceId, { type: 'agent', id: buyer.id }, 'intent.declined', intent.id, { code: decline.code });
        return { status: 'declined', intent, decline };
      }
      if (req.amountPaise > this.config.approvalThresholdPaise) {
        intent.status = 'requires_approval';
        await m.insert(PaymentIntent, intent);
        const approval = await this.approvals.request({
          workspaceId: buyer.workspaceId,
          kind: 'payment',
          subjectId: intent.id,
          amountPaise: req.amountPaise,
          summary: `${buyer.name} wants to pay ${seller.name}: ${req.description}`,
        });
        await this.audit.record(buyer.workspaceId, { type: 'agent', id: buyer.id }, 'intent.requires_approval', intent.id, { approval_id: approval.id });
        return { status: 'requires_approval', intent, approval };
      }
      await m.insert(PaymentIntent, intent);
      return this.settle(intent, req.receiptContext);
    });
  }

  /**
   * The source was canceled while its payment waited for a person: decline the intent and
   * withdraw the approval. Caller holds the source lock (lock order source → intent).
   */
  async cancelPending(intentId: string, reason = 'The payment was canceled before approval'): Promise<void> {
    const m = this.tx.manager;
    const intent = await m.findOne(PaymentIntent, { where: { id: intentId }, lock: { mode: 'pessimistic_write' } });
    if (!intent || intent.status !== 'requires_approval') {
      return;
    }
    const now = this.clock.now();
    await m.update(PaymentIntent, { id: intentId }, { status: 'declined', declineCode: 'canceled', declineReason: reason, updatedAt: now });
    await this.approvals.withdraw('payment', intentId);
  }

  async getIntent(id: string): Promise<PaymentIntent> {
    const intent = await this.tx.manager.findOneBy(PaymentIntent, { id });
    if (!intent) {
      throw paymentErrors.intentNotFound(id);
    }
    return intent;
  }

  /** Debits on the rail; on success writes the receipt and the intent.settled event in this transaction. */
  private async settle(intent: PaymentIntent, receiptContext: Record<string, unknown>): Promise<PayOutcome> {
    const m = this.tx.manager;
    const result = await this.rail.debit({ intentId: intent.id, amountPaise: intent.amountPaise, mandateId: intent.mandateId });
    const now = this.clock.now();
    await m.insert(RailTransfer, {
      id: newId('trf'),
      intentId: intent.id,
      direction: 'debit',
      refundId: null,
      amountPaise: intent.amountPaise,
      status: result.status,
      failureCode: result.status === 'failed' ? result.failureCode : null,
      reference: result.reference,
      createdAt: now,
    });
    if (result.status === 'failed') {
      Object.assign(intent, { status: 'failed', declineCode: result.failureCode, declineReason: result.message, railReference: result.reference, updatedAt: now });
      await m.update(PaymentIntent, { id: intent.id }, { status: 'failed', declineCode: result.failureCode, declineReason: result.message, railReference: result.reference, updatedAt: now });
      return { status: 'failed', intent, decline: { code: result.failureCode, reason: result.message } };
    }
    Object.assign(intent, { status: 'settled', railReference: result.reference, settledAt: now, updatedAt: now });
    const receipt = await this.receipts.issueForPayment(intent, receiptContext);
    intent.receiptId = receipt.receiptId;
    await m.update(PaymentIntent, { id: intent.id }, { status: 'settled', railReference: result.reference, settledAt: now, updatedAt: now, receiptId: receipt.receiptId });
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
    await this.audit.record(intent.buyerWorkspaceId, { type: 'system', id: 'pipeline' }, 'intent.settled', intent.id, { receipt_id: receipt.receiptId });
    return { status: 'settled', intent };
  }

  private async lockForApproval(intentId: string): Promise<void> {
    const intent = await this.tx.manager.findOneBy(PaymentIntent, { id: intentId });
    if (!intent) {
      return;
    }
    await this.sources.get(intent.sourceKind)?.lock(intent.sourceId);
    await this.tx.manager.findOne(PaymentIntent, { where: { id: intentId }, lock: { mode: 'pessimistic_write' } });
  }

  private async onApprovalDecided(approval: Approval, decision: ApprovalDecision): Promise<void> {
    const m = this.tx.manager;
    const intent = await m.findOneByOrFail(PaymentIntent, { id: approval.subjectId });
    if (intent.status !== 'requires_approval') {
      return;
    }
    const source = this.sources.get(intent.sourceKind);
    if (decision === 'approved') {
      const outcome = await this.settle(intent, {
        ...intent.receiptContext,
        approval: { id: approval.id, decided_by: approval.decidedBy, decided_at: approval.decidedAt?.toISOString() ?? null },
      });
      if (outcome.status === 'settled') {
        await source?.onSettled(outcome.intent);
      } else {
        await source?.onDeclined(outcome.intent);
      }
      return;
    }
    const code = decision === 'denied' ? 'approval_denied' : 'approval_expired';
    const reason = decision === 'denied' ? 'A person declined this payment' : 'Nobody approved this payment in time';
    const now = this.clock.now();
    Object.assign(intent, { status: 'declined', declineCode: code, declineReason: reason, updatedAt: now });
    await m.update(PaymentIntent, { id: intent.id }, { status: 'declined', declineCode: code, declineReason: reason, updatedAt: now });
    await source?.onDeclined(intent);
  }

  /** Settled + awaiting-approval amounts of this buyer agent since the start of the Indian day. */
  private async spentToday(buyerAgentId: string, now: Date): Promise<number> {
    const [row] = await this.tx.manager.query<{ total: string }[]>(
      `SELECT COALESCE(SUM(amount_paise), 0)::text AS total FROM payment_intents
        WHERE buyer_agent_id = $1 AND status IN ('requires_approval', 'processing', 'settled') AND created_at >= $2`,
      [buyerAgentId, startOfIndianDay(now)],
    );
    return Number(row.total);
  }
}
