import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';

import { ChainService } from '../chains/chain.service';
import { AuditLog } from '../common/audit';
import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { formatRupees } from '../common/money';
import { Sweeper } from '../common/sweeper/sweeper';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { Tx } from '../database/tx';
import { OutboxRepository } from '../outbox/outbox.repository';
import { GatewayClient, GatewayError } from '../rails/gateway/gateway-client';
import type { GatewayPayment, GatewayRefund } from '../rails/gateway/gateway-client.types';
import { GATEWAY_CLIENT } from '../rails/gateway/gateway-rail';
import { CaptureRefundRepository, CaptureRefundRow } from './capture-refund.repository';

/** A captured payment the service cannot settle on exactly one intent, and why. */
export interface UnsettledCapture {
  payment: Pick<GatewayPayment, 'id' | 'order_id' | 'amount' | 'currency'>;
  /** Our code for why (daily_cap_exceeded, quote_already_paid, amount_mismatch, …). */
  reasonCode: string;
  /** Why, in words for the person who paid. */
  reason: string;
  checkoutId?: string | null;
  quoteId?: string | null;
  intentId?: string | null;
  buyerWorkspaceId: string | null;
  sellerWorkspaceId: string | null;
  sellerAgentId: string | null;
}

/** What the person and the API are told about one capture being refunded. */
export interface CaptureRefundView {
  id: string;
  status: 'refunding' | 'refunded';
  amount_paise: number;
  payment_reference: string;
  refund_reference: string | null;
  reason_code: string;
  message: string;
  refunded_at: string | null;
}

/** Sweep name: asks due refunds and looks up requested ones. */
export const CAPTURE_REFUND_SWEEP = 'gateway.capture-refunds';
/** How long a claimed row is left alone before the next try (also the look-up interval). */
const RETRY_MS = 60_000;
const SWEEP_EVERY_MS = 5_000;
const ACTOR = { type: 'system' as const, id: 'gateway' };

/**
 * Every capture settles on one intent or is refunded in full (docs/gateway.md "Going live on the
 * gateway", docs/architecture.md "Every capture settles or is refunded").
 *
 * Whoever meets a captured payment it cannot settle (the hosted page's settleCaptured, a
 * payment webhook for an intent that has already ended, the ended-checkout pass) calls `hold` in
 * the transaction that decided so: one row per payment (unique), a signed chain whose id is the
 * row's (`capture.refund_due`, later `capture.refunded`), a `capture.refund_started` event to
 * the seller and an audit row for the checkout's and the intent's history. After the commit the
 * sweep asks the gateway for a full refund (receipt = the row id, Idempotency-Key
 * crf-<id>-<asks>: a retried ask is the same ask; a refund the gateway fails is asked anew with
 * asks + 1), records it `requested`, and ends it `refunded` when the gateway says processed — by
 * a refund webhook (onGatewayRefund) or by the sweep's own look-up, whichever comes first. No
 * network call runs inside a transaction.
 */
@Injectable()
export class CaptureRefunds implements OnModuleInit {
  private readonly logger = new Logger(CaptureRefunds.name);

  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly store: CaptureRefundRepository,
    private readonly chains: ChainService,
    private readonly outbox: OutboxRepository,
    private readonly audit: AuditLog,
    private readonly sweeper: Sweeper,
    @Inject(GATEWAY_CLIENT) private readonly gateway: GatewayClient | null,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    if (this.config.gateway) {
      this.sweeper.register(CAPTURE_REFUND_SWEEP, () => this.run(), { everyMs: SWEEP_EVERY_MS });
    }
  }

  /**
   * Holds a capture for a full refund, in the caller's transaction. Idempotent: a capture already
   * held is left as it is (false). The refund is asked after the commit.
   */
  async hold(c: UnsettledCapture): Promise<boolean> {
    if (!(c.payment.amount > 0)) {
      return false;
    }
    return this.tx.run(async () => {
      const now = this.clock.now();
      const id = newId('crf');
      const inserted = await this.store.insert({
        id,
        payment_id: c.payment.id,
        order_id: c.payment.order_id,
        amount_paise: c.payment.amount,
        checkout_id: c.checkoutId ?? null,
        quote_id: c.quoteId ?? null,
        intent_id: c.intentId ?? null,
        buyer_workspace_id: c.buyerWorkspaceId,
        seller_workspace_id: c.sellerWorkspaceId,
        seller_agent_id: c.sellerAgentId,
        reason_code: c.reasonCode,
        reason: c.reason,
        created_at: now,
      });
      if (!inserted) {
        return false;
      }
      const facts = {
        capture_refund_id: id,
        payment_reference: c.payment.id,
        gateway_order_id: c.payment.order_id,
        amount_paise: c.payment.amount,
        currency: c.payment.currency,
        reason_code: c.reasonCode,
        checkout_id: c.checkoutId ?? null,
        quote_id: c.quoteId ?? null,
        intent_id: c.intentId ?? null,
      };
      await this.chains.start(id, {
        type: 'capture.refund_due',
        ...facts,
        reason: c.reason,
        seller: { workspace_id: c.sellerWorkspaceId, agent_id: c.sellerAgentId },
        buyer: { workspace_id: c.buyerWorkspaceId },
        held_at: now.toISOString(),
      });
      if (c.sellerWorkspaceId && c.sellerAgentId) {
        await this.outbox.add({
          workspaceId: c.sellerWorkspaceId,
          agentId: c.sellerAgentId,
          type: 'capture.refund_started',
          subjectId: id,
          data: { ...facts, held_at: now.toISOString() },
        });
      }
      await this.recordHistory(c.buyerWorkspaceId ?? c.sellerWorkspaceId, 'capture.refund_due', {
        ...facts,
      });
      this.logger.warn(
        { capture_refund_id: id, payment_id: c.payment.id, reason_code: c.reasonCode },
        'captured gateway payment cannot settle: held for a full refund',
      );
      this.tx.afterCommit(() => this.sweeper.wake(CAPTURE_REFUND_SWEEP));
      return true;
    });
  }

  /** The held capture of a payment, if any (read in the caller's transaction). */
  findByPayment(paymentId: string): Promise<CaptureRefundRow | null> {
    return this.store.findByPayment(paymentId);
  }

  async ofCheckout(checkoutId: string): Promise<CaptureRefundView[]> {
    return (await this.store.ofCheckout(checkoutId)).map(viewOf);
  }

  async ofIntent(intentId: string): Promise<CaptureRefundView[]> {
    return (await this.store.ofIntent(intentId)).map(viewOf);
  }

  /** Captures not yet refunded, oldest first, with their age (operators). */
  awaiting(limit: number): Promise<CaptureRefundRow[]> {
    return this.store.awaiting(limit);
  }

  refunded(limit: number): Promise<CaptureRefundRow[]> {
    return this.store.refunded(limit);
  }

  /**
   * One pass: every row whose next step is due (a refund to ask, a requested one to look up),
   * claimed in a short transaction, then each handled with its gateway call outside any
   * transaction and its answer recorded in another. Returns how many ended refunded.
   */
  async run(limit = 20): Promise<number> {
    const gateway = this.gateway;
    if (!gateway) {
      return 0;
    }
    const now = this.clock.now();
    const claimed = await this.tx.run(() =>
      this.store.claimDue(now, new Date(now.getTime() + RETRY_MS), limit),
    );
    let refunded = 0;
    for (const row of claimed) {
      try {
        const refund =
          row.status === 'requested' && row.gateway_refund_id
            ? await gateway.getRefund(row.gateway_refund_id)
            : await this.ask(gateway, row);
        if (refund && (await this.record(row.id, refund)) === 'refunded') {
          refunded++;
        }
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        this.logger.warn(
          { capture_refund_id: row.id, err: message },
          'capture refund: retry later',
        );
        await this.tx.run(() => this.store.noteError(row.id, message));
      }
    }
    return refunded;
  }

  /**
   * Asks the gateway for the full refund (the same ask on every retry of this `asks`). A refusal
   * because the payment is refunded already is answered by the gateway's own list of the
   * payment's refunds: ours (by receipt) is the answer.
   */
  private async ask(gateway: GatewayClient, row: CaptureRefundRow): Promise<GatewayRefund | null> {
    try {
      return await gateway.createRefund(
        row.payment_id,
        { receipt: row.id, notes: { capture_refund_id: row.id, reason_code: row.reason_code } },
        `crf-${row.id}-${row.asks}`,
      );
    } catch (err) {
      if (err instanceof GatewayError && !err.retryable) {
        const ours = (await gateway.listPaymentRefunds(row.payment_id)).filter(
          (r) => r.receipt === row.id && r.status !== 'failed',
        );
        if (ours.length > 0) {
          return ours.find((r) => r.status === 'processed') ?? ours[0];
        }
      }
      throw err;
    }
  }

  /**
   * A refund webhook: ours when its receipt is a capture refund's id (crf_…). Applied in the
   * caller's transaction; null when the refund is not one of these.
   */
  async onGatewayRefund(refund: GatewayRefund): Promise<'applied' | 'no_change' | null> {
    if (!refund.receipt?.startsWith('crf_')) {
      return null;
    }
    const row = await this.store.find(refund.receipt);
    if (!row || row.payment_id !== refund.payment_id) {
      return null;
    }
    const moved = await this.record(row.id, refund);
    return moved === 'unchanged' ? 'no_change' : 'applied';
  }

  /** Records what the gateway says of our refund: forward only (due → requested → refunded). */
  private async record(
    id: string,
    refund: GatewayRefund,
  ): Promise<'refunded' | 'requested' | 'due' | 'unchanged'> {
    return this.tx.run(async () => {
      const now = this.clock.now();
      const next = new Date(now.getTime() + RETRY_MS);
      switch (refund.status) {
        case 'processed': {
          const row = await this.store.markRefunded(id, refund.id, now);
          if (!row) {
            return 'unchanged';
          }
          await this.finished(row, refund, now);
          return 'refunded';
        }
        case 'pending':
          return (await this.store.markRequested(id, refund.id, now, next))
            ? 'requested'
            : 'unchanged';
        case 'failed': {
          // A refund that failed within the same call was never seen `requested`.
          await this.store.markRequested(id, refund.id, now, next);
          const again = await this.store.markRefundFailed(
            id,
            refund.id,
            'The gateway reported the refund failed; asking again',
            next,
          );
          return again ? 'due' : 'unchanged';
        }
      }
    });
  }

  /** The end of a capture's refund: the chain's last entry, the seller's event, the history. */
  private async finished(row: CaptureRefundRow, refund: GatewayRefund, now: Date) {
    const facts = {
      capture_refund_id: row.id,
      payment_reference: row.payment_id,
      refund_reference: refund.id,
      amount_paise: row.amount_paise,
      checkout_id: row.checkout_id,
      quote_id: row.quote_id,
      intent_id: row.intent_id,
      refunded_at: now.toISOString(),
    };
    await this.chains.append(row.id, { type: 'capture.refunded', ...facts });
    if (row.seller_workspace_id && row.seller_agent_id) {
      await this.outbox.add({
        workspaceId: row.seller_workspace_id,
        agentId: row.seller_agent_id,
        type: 'capture.refunded',
        subjectId: row.id,
        data: facts,
      });
    }
    await this.recordHistory(
      row.buyer_workspace_id ?? row.seller_workspace_id,
      'capture.refunded',
      facts,
    );
  }

  /** Audit rows under the checkout and under the intent, so each one's history shows it. */
  private async recordHistory(
    workspaceId: string | null,
    action: string,
    facts: { checkout_id: string | null; intent_id: string | null; capture_refund_id: string },
  ): Promise<void> {
    if (!workspaceId) {
      return;
    }
    const subjects = [facts.checkout_id, facts.intent_id].filter((s): s is string => s !== null);
    for (const subject of subjects.length > 0 ? subjects : [facts.capture_refund_id]) {
      await this.audit.record(workspaceId, ACTOR, action, subject, facts);
    }
  }
}

/** The row as the person and the API see it, in words. */
export function viewOf(row: CaptureRefundRow): CaptureRefundView {
  const amount = formatRupees(row.amount_paise);
  const refunded = row.status === 'refunded';
  return {
    id: row.id,
    status: refunded ? 'refunded' : 'refunding',
    amount_paise: row.amount_paise,
    payment_reference: row.payment_id,
    refund_reference: row.gateway_refund_id,
    reason_code: row.reason_code,
    message: refunded
      ? `${amount} was refunded to you in full (refund ${row.gateway_refund_id}, payment ${row.payment_id}). Your bank usually shows it within a few working days.`
      : `You were not charged: ${amount} is being refunded, reference ${row.payment_id}. ${row.reason}`,
    refunded_at: row.refunded_at ? new Date(row.refunded_at).toISOString() : null,
  };
}
