import { Inject, Injectable } from '@nestjs/common';

import { Clock } from '../common/clock';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { MandatesService } from '../mandates/mandates.service';
import { OutboxRepository } from '../outbox/outbox.repository';
import { GatewayRepository } from '../rails/gateway/gateway.repository';
import { formatIst } from '../web/local-time';
import {
  GrievanceFacts,
  grievanceWords,
  MessageText,
  partyClosedText,
  postDebitAlertText,
  preDebitNoticeText,
  retryAfterFailure,
} from './autopay-messages';
import { RecurringCharge } from './recurring-charge.entity';
import { RecurringChargeRepository } from './recurring-charge.repository';

/** Event to the buyer's webhook endpoints: the pre-debit notice (docs/recurring.md "Recurring payments"). */
export const PRE_DEBIT_NOTICE_EVENT = 'recurring.pre_debit_notice';
/** Event to the buyer's endpoints after every debit, settled or failed: the post-debit alert. */
export const POST_DEBIT_ALERT_EVENT = 'recurring.post_debit_alert';

/** Charge statuses after a debit was attempted (the post-debit alert's subject). */
const DEBITED = ['settled', 'failed', 'declined'] as const;

/** The part of config.dataRights (GRIEVANCE_OFFICER_*, GRIEVANCE_RESPONSE_DAYS) read here. */
interface GrievanceConfig {
  grievanceOfficerName: string;
  grievanceOfficerEmail: string;
  grievanceResponseDays: number;
}

/** One of the person's AutoPay notifications, as /app/autopay lists them. */
export interface PersonNotification {
  kind: 'pre_debit_notice' | 'post_debit_alert' | 'party_closed';
  chargeId: string;
  at: Date;
  text: MessageText;
}

/**
 * What the person is told about each recurring debit (RBI E-Mandate Framework 2026, DOMAIN.md
 * 12a): the pre-debit notice and the post-debit alert, each built once here for the webhook event
 * (its `data`, with the words under `notification`), the person's notifications and the app page.
 */
@Injectable()
export class AutopayNotices {
  constructor(
    private readonly clock: Clock,
    private readonly charges: RecurringChargeRepository,
    private readonly mandates: MandatesService,
    private readonly outbox: OutboxRepository,
    private readonly gateway: GatewayRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The gateway's UPI mandate (token) reference of a mandate, when it has one. */
  async upiMandateRef(mandateId: string): Promise<string | null> {
    return (await this.gateway.mandateToken(mandateId))?.token_id ?? null;
  }

  optOutUrl(c: RecurringCharge): string {
    return `${this.config.appUrl}/autopay/charges/${c.id}/opt-out`;
  }

  optOutApi(c: RecurringCharge): string {
    return `POST /v1/pay/mandates/${c.mandateId}/charges/${c.id}/opt-out`;
  }

  noticeText(c: RecurringCharge, sellerName: string): MessageText {
    return preDebitNoticeText({
      sellerName,
      amountPaise: c.amountPaise,
      debitAt: c.debitAt,
      mandateId: c.mandateId,
      upiMandateRef: c.upiMandateRef,
      reason: c.reason,
      firstDebit: c.firstDebit,
      authorisation: c.authorisation,
      optOutUrl: this.optOutUrl(c),
      revokeUrl: `${this.config.appUrl}/consent`,
    });
  }

  /** The `recurring.pre_debit_notice` event's data. */
  noticeData(c: RecurringCharge, sellerName: string) {
    return {
      charge_id: c.id,
      mandate_id: c.mandateId,
      mandate_reference: { id: c.mandateId, upi_mandate_ref: c.upiMandateRef },
      buyer_agent_id: c.buyerAgentId,
      seller_agent_id: c.sellerAgentId,
      seller_name: sellerName,
      merchant: { agent_id: c.sellerAgentId, name: sellerName },
      amount_paise: c.amountPaise,
      currency: 'INR',
      description: c.description,
      reason: c.reason,
      notice_at: c.noticeAt.toISOString(),
      debit_at: c.debitAt.toISOString(),
      debit_at_ist: formatIst(c.debitAt),
      billing_cycle: {
        index: c.cycleIndex,
        start: c.cycleStart.toISOString(),
        end: c.cycleEnd.toISOString(),
      },
      first_debit: c.firstDebit,
      authorisation: c.authorisation,
      authorisation_url:
        c.authorisation === 'with_registration'
          ? `${this.config.appUrl}/mandates/${c.mandateId}/authorize`
          : c.approvalId
            ? `${this.config.appUrl}/approvals/${c.approvalId}`
            : null,
      opt_out: { url: this.optOutUrl(c), api: this.optOutApi(c) },
      // The earlier name of the same opt-out (kept for clients that read it).
      cancel: {
        url: `${this.config.appUrl}/autopay/charges/${c.id}/cancel`,
        api: `POST /v1/pay/mandates/${c.mandateId}/charges/${c.id}/cancel`,
      },
      revoke_mandate: { url: `${this.config.appUrl}/consent` },
      notification: this.noticeText(c, sellerName),
    };
  }

  /** Where and to whom a grievance goes (the grievance officer when configured). */
  grievance(): GrievanceFacts & { words: string } {
    // GRIEVANCE_OFFICER_* (config.dataRights) may be absent: then the legal page alone.
    const rights = (this.config as { dataRights?: GrievanceConfig }).dataRights;
    const facts: GrievanceFacts = {
      officer: rights
        ? {
            name: rights.grievanceOfficerName,
            email: rights.grievanceOfficerEmail,
            responseDays: rights.grievanceResponseDays,
          }
        : null,
      url: `${this.config.appUrl}/legal/privacy`,
    };
    return { ...facts, words: grievanceWords(facts) };
  }

  private alertText(c: RecurringCharge, sellerName: string): MessageText {
    const failed = c.status !== 'settled';
    const at = c.alertedAt ?? c.updatedAt;
    return postDebitAlertText({
      outcome: failed ? 'failed' : 'settled',
      sellerName,
      amountPaise: c.amountPaise,
      at,
      mandateId: c.mandateId,
      upiMandateRef: c.upiMandateRef,
      reason: c.reason,
      receipt: c.receiptId ? { id: c.receiptId, url: this.receiptUrl(c.receiptId) } : null,
      failureReason: c.failureReason,
      retry: failed ? this.retry(c, at) : null,
      grievance: this.grievance(),
    });
  }

  private receiptUrl(id: string): string {
    return `${this.config.appUrl}/receipts/${id}`;
  }

  private retry(c: RecurringCharge, at: Date) {
    return retryAfterFailure(at, c.cycleEnd, this.config.autopay.noticeLeadMs);
  }

  /**
   * The post-debit alert, once per charge (caller holds the charge's lock, the charge already in
   * its outcome status): `recurring.post_debit_alert` to the buyer's endpoints, and the person's
   * notification (the charge's alerted_at).
   */
  async postDebitAlert(c: RecurringCharge, receiptId: string | null): Promise<void> {
    if (c.alertedAt || !(DEBITED as readonly string[]).includes(c.status)) {
      return;
    }
    const now = this.clock.now();
    const upiMandateRef = c.upiMandateRef ?? (await this.upiMandateRef(c.mandateId));
    Object.assign(c, { alertedAt: now, receiptId, upiMandateRef });
    await this.charges.update(c.id, { alertedAt: now, receiptId, upiMandateRef });
    const sellerName = await this.sellerName(c);
    const failed = c.status !== 'settled';
    const retry = failed ? this.retry(c, now) : null;
    const grievance = this.grievance();
    await this.outbox.add({
      workspaceId: c.buyerWorkspaceId,
      agentId: c.buyerAgentId,
      type: POST_DEBIT_ALERT_EVENT,
      subjectId: c.id,
      data: {
        charge_id: c.id,
        outcome: failed ? 'failed' : 'settled',
        status: c.status,
        mandate_id: c.mandateId,
        mandate_reference: { id: c.mandateId, upi_mandate_ref: upiMandateRef },
        merchant: { agent_id: c.sellerAgentId, name: sellerName },
        amount_paise: c.amountPaise,
        currency: 'INR',
        reason: c.reason,
        at: now.toISOString(),
        at_ist: formatIst(now),
        intent_id: c.intentId,
        receipt: receiptId ? { id: receiptId, url: this.receiptUrl(receiptId) } : null,
        failure: failed ? { code: c.failureCode, reason: c.failureReason } : null,
        retry: retry
          ? {
              will_retry: retry.willRetry,
              next_attempt_at: retry.nextAttemptAt?.toISOString() ?? null,
              words: retry.words,
            }
          : null,
        grievance: {
          words: grievance.words,
          url: grievance.url,
          officer: grievance.officer
            ? {
                name: grievance.officer.name,
                email: grievance.officer.email,
                response_days: grievance.officer.responseDays,
              }
            : null,
        },
        notification: this.alertText(c, sellerName),
      },
    });
  }

  /** The person's notifications for these charges (newest first): each notice and alert. */
  async forPerson(rows: RecurringCharge[]): Promise<PersonNotification[]> {
    const names = await this.mandates.agentNames(rows.map((c) => c.sellerAgentId));
    const out: PersonNotification[] = [];
    for (const c of rows) {
      const seller = names.get(c.sellerAgentId) ?? c.sellerAgentId;
      out.push({
        kind: 'pre_debit_notice',
        chargeId: c.id,
        at: c.noticeAt,
        text: this.noticeText(c, seller),
      });
      const closedSide = closedSideOf(c);
      if (closedSide && c.cancelledAt) {
        out.push({
          kind: 'party_closed',
          chargeId: c.id,
          at: c.cancelledAt,
          text: partyClosedText({
            sellerName: seller,
            amountPaise: c.amountPaise,
            debitAt: c.debitAt,
            side: closedSide,
          }),
        });
      }
      if (c.alertedAt) {
        out.push({
          kind: 'post_debit_alert',
          chargeId: c.id,
          at: c.alertedAt,
          text: this.alertText(c, seller),
        });
      }
    }
    return out.sort((a, b) => b.at.getTime() - a.at.getTime());
  }

  private async sellerName(c: RecurringCharge): Promise<string> {
    return (
      (await this.mandates.agentNames([c.sellerAgentId])).get(c.sellerAgentId) ?? c.sellerAgentId
    );
  }
}

/**
 * The side whose closure cancelled this charge (docs/architecture.md "Party lifecycle"), from the
 * code the closure records (src/accounts/party-closure.service.ts CLOSED_SELLER / CLOSED_BUYER).
 */
export function closedSideOf(c: RecurringCharge): 'seller' | 'buyer' | null {
  if (c.status !== 'cancelled') {
    return null;
  }
  return c.failureCode === 'seller_unavailable'
    ? 'seller'
    : c.failureCode === 'buyer_unavailable'
      ? 'buyer'
      : null;
}
