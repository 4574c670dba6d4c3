import { Controller, Get, Render, UseGuards, UseInterceptors } from '@nestjs/common';

import { Clock } from '../common/clock';
import { CredentialRateLimitGuard } from '../common/rate-limit/credential-rate-limit.guard';
import { CaptureRefunds } from '../gateway/capture-refunds';
import { OperatorGuard } from '../ops/operator.guard';
import { StatusCheckPacing } from '../payments/status-check-pacing';
import { AppLayout } from '../web/app-layout.service';
import { AppController, CurrentPerson } from '../web/current-person.decorator';
import { NoStoreInterceptor } from '../web/no-store.interceptor';
import { SignedInPerson } from '../web/signed-in-person';
import { SettlementsService } from './settlements.service';

/**
 * GET /app/ops/settlements: the reconciliation for operators (docs/gateway.md "Settlements and
 * reconciliation"): every mismatch (amount, missing, unknown) with both amounts, the recent
 * settlements with their UTR, fees, tax and how many of their lines disagree, and the captured
 * payments that could not settle on an intent with their age until refunded (docs/gateway.md "Going live
 * on the gateway").
 */
@AppController()
@UseGuards(OperatorGuard, CredentialRateLimitGuard)
@UseInterceptors(NoStoreInterceptor)
@Controller('app/ops/settlements')
export class SettlementsOpsController {
  constructor(
    private readonly settlements: SettlementsService,
    private readonly captures: CaptureRefunds,
    private readonly pacing: StatusCheckPacing,
    private readonly clock: Clock,
    private readonly layout: AppLayout,
  ) {}

  @Get()
  @Render('app/ops-settlements')
  async page(@CurrentPerson() person: SignedInPerson) {
    const mismatches = await this.settlements.mismatches(200);
    const settlements = await this.settlements.settlements(50);
    const awaiting = await this.captures.awaiting(200);
    const refunded = await this.captures.refunded(20);
    const leftDebits = await this.pacing.leftOpen(100);
    const now = this.clock.now().getTime();
    return this.layout.page(person, 'Settlements', {
      mismatches: mismatches.map((m) => ({
        id: m.id,
        kind: m.kind,
        mismatch: m.mismatch,
        gatewayEntityId: m.gatewayEntityId,
        intentId: m.intentId,
        reportedPaise: m.amountPaise,
        expectedPaise: m.expectedAmountPaise,
        utr: m.utr,
        settlementId: m.gatewaySettlementId,
      })),
      settlements: settlements.map((s) => ({ ...s, settledAt: s.settledAt.toISOString() })),
      // AutoPay debits whose status checks ran out (StatusCheckPacing): the report settles them.
      leftToReconciliation: leftDebits.map((d) => ({
        intentId: d.intentId,
        chargeId: d.sourceId,
        amountPaise: d.amountPaise,
        checks: d.checks,
        leftAt: d.leftAt.toISOString(),
      })),
      // Captures that could not settle on an intent, refunded in full (CaptureRefunds).
      awaitingRefund: awaiting.map((c) => ({
        id: c.id,
        paymentId: c.payment_id,
        amountPaise: c.amount_paise,
        reasonCode: c.reason_code,
        status: c.status,
        refundId: c.gateway_refund_id,
        lastError: c.last_error,
        subject: c.checkout_id ?? c.intent_id,
        age: ageInWords(now - new Date(c.created_at).getTime()),
        heldAt: new Date(c.created_at).toISOString(),
      })),
      refundedCaptures: refunded.map((c) => ({
        id: c.id,
        paymentId: c.payment_id,
        amountPaise: c.amount_paise,
        reasonCode: c.reason_code,
        refundId: c.gateway_refund_id,
        refundedAt: c.refunded_at ? new Date(c.refunded_at).toISOString() : null,
      })),
    });
  }
}

/** 95 s → "1 min 35 s", 2 h 3 min → "2 h 3 min": the age of a capture awaiting its refund. */
function ageInWords(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) {
    return `${s} s`;
  }
  const m = Math.floor(s / 60);
  if (m < 60) {
    return `${m} min ${s % 60} s`;
  }
  const h = Math.floor(m / 60);
  return h < 48 ? `${h} h ${m % 60} min` : `${Math.floor(h / 24)} days`;
}
