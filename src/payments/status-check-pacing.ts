import { Injectable, Logger } from '@nestjs/common';

import { AuditLog } from '../common/audit';
import { Clock } from '../common/clock';
import { Tx } from '../database/tx';
import { RULES } from '../rules/rule-catalog';
import type { PaymentIntent } from './entities/payment-intent.entity';
import { PaymentIntentRepository } from './payment-intent.repository';
import { RailStatusCheckRepository } from './rail-status-check.repository';

/** NPCI's limits on asking about one AutoPay debit (docs/rules.md), in force at the debit's date. */
export interface StatusCheckLimits {
  maxChecks: number;
  minSpacingMs: number;
}

/** The limits in force at `at` (the debit's date), or null before they applied (1 Aug 2025). */
export function statusCheckLimitsAt(at: Date): StatusCheckLimits | null {
  const max = RULES.versionAt<number>('autopay.status_check_max', at);
  const spacing = RULES.versionAt<number>('autopay.status_check_min_spacing', at);
  return max && spacing ? { maxChecks: max.value, minSpacingMs: spacing.value } : null;
}

/** The earliest instant the gateway may be asked again after an ask at `askedAt`. */
export function nextAskAt(askedAt: Date, limits: StatusCheckLimits): Date {
  return new Date(askedAt.getTime() + limits.minSpacingMs);
}

/**
 * Which debits are paced: AutoPay debits, i.e. intents of source kind `recurring` (a seller's
 * scheduled charge on a recurring UPI AutoPay mandate, src/recurring). Other payments under a
 * mandate also charge its token on the gateway rail, but they are the agent's own payments, not
 * AutoPay executions, and keep the reconciler's own schedule (RAIL_RECONCILE_AFTER_MS).
 */
export function isPaced(intent: Pick<PaymentIntent, 'sourceKind'>): boolean {
  return intent.sourceKind === 'recurring';
}

const ACTOR = { type: 'system' as const, id: 'rail-reconciler' };

/** An AutoPay debit left to the daily settlement reconciliation, for operators. */
export interface LeftDebit {
  intentId: string;
  amountPaise: number;
  /** The recurring charge. */
  sourceId: string;
  checks: number;
  leftAt: Date;
}

/**
 * Status checks within NPCI limits (docs/recurring.md "Recurring payments (UPI AutoPay)"): for an AutoPay
 * debit whose outcome the rail left unknown, the service asks the gateway at most
 * `autopay.status_check_max` times (3), each at least `autopay.status_check_min_spacing` (90 s)
 * after the previous ask (the debit itself included), then leaves the intent `processing` for the
 * daily settlement reconciliation (SettlementReconciler settles it when its payment is in the
 * report), recorded in rail_status_checks (`left_at`), the buyer's audit log
 * (`payment.status_checks_exhausted`) and shown on /app/ops/settlements. A webhook from the
 * gateway may still settle or fail it at any time. The limits are those in force at the debit's
 * date (the intent's creation, IST).
 */
@Injectable()
export class StatusCheckPacing {
  private readonly logger = new Logger(StatusCheckPacing.name);

  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly checks: RailStatusCheckRepository,
    private readonly intents: PaymentIntentRepository,
    private readonly audit: AuditLog,
  ) {}

  /**
   * Operators (/app/ops/settlements): AutoPay debits left to the daily reconciliation whose intent
   * is still `processing`, newest first.
   */
  async leftOpen(limit: number): Promise<LeftDebit[]> {
    const out: LeftDebit[] = [];
    for (const row of await this.checks.left(limit)) {
      const intent = await this.intents.find(row.intent_id);
      if (intent?.status === 'processing') {
        out.push({
          intentId: intent.id,
          amountPaise: intent.amountPaise,
          sourceId: intent.sourceId,
          checks: row.checks,
          leftAt: new Date(row.left_at as Date),
        });
      }
    }
    return out;
  }

  private limitsFor(intent: PaymentIntent): StatusCheckLimits | null {
    return isPaced(intent) ? statusCheckLimitsAt(intent.createdAt) : null;
  }

  /**
   * The debit went out at `askedAt` with no definite answer: the first check waits its spacing.
   * Returns that wait (undefined: not paced).
   */
  async afterDebit(intent: PaymentIntent, askedAt: Date): Promise<number | undefined> {
    const limits = this.limitsFor(intent);
    if (!limits) {
      return undefined;
    }
    const next = nextAskAt(askedAt, limits);
    await this.tx.run(() => this.checks.recordDebit(intent.id, askedAt, next));
    return Math.max(0, next.getTime() - this.clock.now().getTime());
  }

  /**
   * Before a status check: takes it (true) when the intent is not paced, or a check is left and
   * due; false: the gateway must not be asked now.
   */
  async takeCheck(intent: PaymentIntent): Promise<boolean> {
    const limits = this.limitsFor(intent);
    if (!limits) {
      return true;
    }
    const now = this.clock.now();
    const n = await this.tx.run(() =>
      this.checks.takeCheck(intent.id, now, nextAskAt(now, limits), limits.maxChecks),
    );
    return n !== null;
  }

  /**
   * A status check still had no definite answer: the delay until the next check may go out, or
   * null when the checks ran out and the intent was left to the daily settlement reconciliation.
   * Not paced: undefined (the reconciler's own schedule).
   */
  async afterPendingCheck(intent: PaymentIntent): Promise<number | null | undefined> {
    const limits = this.limitsFor(intent);
    if (!limits) {
      return undefined;
    }
    const row = await this.checks.find(intent.id);
    if (row && row.checks < limits.maxChecks) {
      return Math.max(0, new Date(row.next_ask_at).getTime() - this.clock.now().getTime());
    }
    const now = this.clock.now();
    await this.tx.run(async () => {
      if (await this.checks.markLeft(intent.id, now)) {
        await this.audit.record(
          intent.buyerWorkspaceId,
          ACTOR,
          'payment.status_checks_exhausted',
          intent.id,
          { checks: row?.checks ?? limits.maxChecks, left_to: 'daily_settlement_reconciliation' },
        );
      }
    });
    this.logger.warn(
      { intent_id: intent.id, checks: row?.checks },
      'AutoPay debit still unknown after its status checks; left to the daily settlement reconciliation',
    );
    return null;
  }
}
