import { Inject, Injectable } from '@nestjs/common';

import { CheckoutSession, CheckoutStatus } from '../checkout/checkout-session.entity';
import { CheckoutSessionRepository } from '../checkout/checkout-session.repository';
import { AuditActor, AuditLog } from '../common/audit';
import type { ProtocolKeyPrincipal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { paiseFromSql } from '../common/money';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { Tx } from '../database/tx';
import { MAX_PER_PAYMENT_CAP_PAISE } from '../mandates/dto/create-mandate.dto';
import type { Mandate } from '../mandates/mandate.entity';
import { authorizationUrl } from '../mandates/mandate.mapper';
import { MandatesService } from '../mandates/mandates.service';
import { parseRfc3339 } from '../mandates/rfc3339';
import { RULES } from '../rules/rule-catalog';
import { delegatePaymentErrors as errors } from './delegate-payment.errors';
import { DelegatedToken } from './delegated-token.entity';
import { DelegatedTokenRepository } from './delegated-token.repository';
import { AllowanceDto, DelegatePaymentDto } from './dto/delegate-payment.dto';
import { DelegatePaymentResponse } from './dto/delegate-payment.response';
import { parsePaymentMethod } from './payment-method';

/** A delegated token lives at most 7 days (docs/acp.md §6). */
const MAX_TOKEN_LIFETIME_MS = RULES.latest<number>('delegated_token.max_lifetime');
const OPEN_SESSION: ReadonlySet<CheckoutStatus> = new Set([
  'ready_for_payment',
  'not_ready_for_payment',
]);
/** Metadata keys we set; the request's metadata is echoed without them. */
const SYSTEM_METADATA = [
  'source',
  'merchant_id',
  'checkout_session_id',
  'mandate_id',
  'idempotency_key',
  'status',
  'authorization_url',
];

interface CheckedAllowance {
  maxAmountPaise: number;
  checkoutSessionId: string;
  merchantId: string;
  expiresAt: Date;
}

export interface LiveToken {
  id: string;
  merchantAgentId: string;
  merchantName: string;
  maxAmountPaise: number;
  expiresAt: Date;
  checkoutSessionId: string;
  mandateId: string;
  /** Set when the token was spent on a payment that still waits for a person's approval. */
  waitingIntentId: string | null;
}

/** The allowance's values (the schema already fixed its shape): docs/acp.md §6 allowance rules. */
function checkAllowance(a: AllowanceDto, now: Date): CheckedAllowance {
  if (a.reason !== 'one_time') {
    throw errors.invalidAllowance('$.allowance.reason', 'allowance.reason must be "one_time"');
  }
  if (a.currency !== 'inr') {
    throw errors.invalidAllowance(
      '$.allowance.currency',
      'allowance.currency must be "inr"; amounts are in paise',
    );
  }
  if (a.max_amount <= 0) {
    throw errors.invalidAllowance(
      '$.allowance.max_amount',
      'allowance.max_amount must be a positive number of paise',
    );
  }
  if (a.max_amount > MAX_PER_PAYMENT_CAP_PAISE) {
    throw errors.invalidAllowance(
      '$.allowance.max_amount',
      `allowance.max_amount is above the sandbox maximum of ${MAX_PER_PAYMENT_CAP_PAISE} paise`,
    );
  }
  const expiresAt = parseRfc3339(a.expires_at);
  if (!expiresAt) {
    throw errors.invalidAllowance(
      '$.allowance.expires_at',
      'allowance.expires_at must be an RFC 3339 date-time with an offset, e.g. 2026-05-01T10:00:00Z',
    );
  }
  if (expiresAt.getTime() <= now.getTime()) {
    throw errors.invalidAllowance(
      '$.allowance.expires_at',
      'allowance.expires_at must be in the future',
    );
  }
  if (expiresAt.getTime() > now.getTime() + MAX_TOKEN_LIFETIME_MS) {
    throw errors.invalidAllowance(
      '$.allowance.expires_at',
      'allowance.expires_at can be at most 7 days from now',
    );
  }
  return {
    maxAmountPaise: a.max_amount,
    checkoutSessionId: a.checkout_session_id,
    merchantId: a.merchant_id,
    expiresAt,
  };
}

/**
 * The PSP side of ACP (docs/acp.md §6): mints one-time delegated tokens (vt_…) drawn on a UPI
 * mandate of the calling buyer agent. Spending them is TokensService.redeem at complete time.
 */
@Injectable()
export class DelegatePaymentService {
  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly mandates: MandatesService,
    private readonly tokens: DelegatedTokenRepository,
    private readonly sessions: CheckoutSessionRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * POST /acp/agentic_commerce/delegate_payment. Check order: payment method (cards refused
   * first), allowance values, checkout session and merchant, then the mandate. Without a
   * mandate_id a one-time mandate scoped to the allowance is created for the person to authorise.
   */
  async delegatePayment(
    caller: ProtocolKeyPrincipal,
    body: DelegatePaymentDto,
    idempotencyKey: string,
  ): Promise<DelegatePaymentResponse> {
    const method = parsePaymentMethod(body.payment_method);
    const now = this.clock.now();
    const allowance = checkAllowance(body.allowance, now);
    const actor: AuditActor = { type: 'protocol_key', id: caller.id };
    return this.tx.run(async () => {
      // With a mandate_id, the session and the share-locked mandate come in one statement.
      const named = method.mandateId
        ? await this.mandates.findForBuyerLockedWithSession(
            caller.agentId,
            method.mandateId,
            allowance.checkoutSessionId,
          )
        : null;
      this.checkSession(
        named
          ? named.session && { ...named.session, status: named.session.status as CheckoutStatus }
          : await this.sessions.findById(allowance.checkoutSessionId),
        allowance,
        now,
      );
      const mandate = method.mandateId
        ? await this.mandateFor(caller, method.mandateId, named?.mandate ?? null, allowance, now)
        : await this.mandates.createOneTime(
            {
              workspaceId: caller.workspaceId,
              buyerAgentId: caller.agentId,
              capPaise: allowance.maxAmountPaise,
              payeeAgentId: allowance.merchantId,
              validUntil: allowance.expiresAt,
              description: `One payment for checkout ${allowance.checkoutSessionId}`,
            },
            actor,
          );
      const metadata: Record<string, string> = {
        ...this.echoed(body.metadata),
        source: 'svc',
        merchant_id: allowance.merchantId,
        checkout_session_id: allowance.checkoutSessionId,
        mandate_id: mandate.id,
        idempotency_key: idempotencyKey,
      };
      if (this.mandates.statusOf(mandate) === 'pending_authorisation') {
        metadata.status = 'pending_authorisation';
        metadata.authorization_url = authorizationUrl(this.config.appUrl, mandate.id);
      }
      const token = Object.assign(new DelegatedToken(), {
        id: newId('vt'),
        workspaceId: caller.workspaceId,
        buyerAgentId: caller.agentId,
        protocolKeyId: caller.id,
        mandateId: mandate.id,
        checkoutSessionId: allowance.checkoutSessionId,
        merchantAgentId: allowance.merchantId,
        maxAmountPaise: allowance.maxAmountPaise,
        currency: 'inr',
        expiresAt: allowance.expiresAt,
        status: 'usable' as const,
        metadata,
        usedAt: null,
        revokedAt: null,
        createdAt: now,
      });
      // Nothing reads it back in this transaction (the mandate stays share-locked until commit, so
      // a revocation still sees it): written with the commit's one statement.
      await this.tokens.insertAtCommit(token);
      await this.audit.record(caller.workspaceId, actor, 'token.created', token.id, {
        mandate_id: mandate.id,
        checkout_session_id: token.checkoutSessionId,
        max_amount_paise: token.maxAmountPaise,
      });
      return { id: token.id, created: now.toISOString(), metadata };
    });
  }

  /**
   * Tokens a person can still stop, newest first (consent centre): usable and unexpired, or spent
   * on a payment that still waits for approval (revoking it declines that payment).
   */
  async listLiveTokens(workspaceId: string, limit: number): Promise<LiveToken[]> {
    const rows = await this.tokens.listLive(workspaceId, this.clock.now(), limit);
    return rows.map((r) => ({
      id: r.id,
      merchantAgentId: r.merchant_agent_id,
      merchantName: r.merchant_name,
      maxAmountPaise: paiseFromSql(r.max_amount_paise),
      expiresAt: new Date(r.expires_at),
      checkoutSessionId: r.checkout_session_id,
      mandateId: r.mandate_id,
      waitingIntentId: r.waiting_intent_id,
    }));
  }

  private checkSession(
    session: Pick<CheckoutSession, 'id' | 'status' | 'expiresAt' | 'sellerAgentId'> | null,
    a: CheckedAllowance,
    now: Date,
  ): void {
    if (!session) {
      throw errors.invalidAllowance(
        '$.allowance.checkout_session_id',
        `No checkout session ${a.checkoutSessionId}`,
      );
    }
    if (!OPEN_SESSION.has(session.status) || session.expiresAt.getTime() <= now.getTime()) {
      const state = OPEN_SESSION.has(session.status) ? 'expired' : session.status;
      throw errors.invalidAllowance(
        '$.allowance.checkout_session_id',
        `Checkout session ${session.id} is ${state}; a token can be made only for an open session`,
      );
    }
    if (session.sellerAgentId !== a.merchantId) {
      throw errors.invalidAllowance(
        '$.allowance.merchant_id',
        `merchant_id must be the seller of checkout session ${session.id}`,
      );
    }
  }

  /** A mandate_id the agent named: its own, live, and wide enough for this allowance. */
  private async mandateFor(
    caller: ProtocolKeyPrincipal,
    mandateId: string,
    mandate: Mandate | null,
    a: CheckedAllowance,
    now: Date,
  ): Promise<Mandate> {
    if (!mandate || mandate.workspaceId !== caller.workspaceId) {
      throw errors.mandateNotFound(mandateId);
    }
    const status = this.mandates.statusOf(mandate);
    if (status === 'revoked' || status === 'expired') {
      throw errors.invalidAllowance(
        '$.payment_method.mandate_id',
        `Mandate ${mandate.id} is ${status}`,
      );
    }
    if (mandate.validFrom.getTime() > now.getTime()) {
      throw errors.invalidAllowance(
        '$.payment_method.mandate_id',
        `Mandate ${mandate.id} is valid only from ${mandate.validFrom.toISOString()}`,
      );
    }
    if (a.maxAmountPaise > mandate.perPaymentCapPaise) {
      throw errors.mandateCapExceeded(a.maxAmountPaise, mandate.perPaymentCapPaise);
    }
    if (mandate.payeeAgentIds && !mandate.payeeAgentIds.includes(a.merchantId)) {
      throw errors.invalidAllowance(
        '$.allowance.merchant_id',
        `Merchant ${a.merchantId} is not on the seller list of mandate ${mandate.id}`,
      );
    }
    // Refused rather than clamped: the response has no field that could tell the agent its token
    // expires earlier than it asked, so a silent clamp would surprise it at complete time.
    if (a.expiresAt.getTime() > mandate.validUntil.getTime()) {
      throw errors.invalidAllowance(
        '$.allowance.expires_at',
        `allowance.expires_at is after the mandate's validity (until ${mandate.validUntil.toISOString()}); ask for an earlier expiry`,
      );
    }
    if (mandate.kind === 'recurring') {
      throw errors.invalidAllowance(
        '$.payment_method.mandate_id',
        `Mandate ${mandate.id} is a recurring (AutoPay) mandate: only its sellers' scheduled charges draw on it`,
      );
    }
    if (mandate.kind === 'one_time' && (await this.wasSpent(mandate.id))) {
      throw errors.invalidAllowance(
        '$.payment_method.mandate_id',
        `One-time mandate ${mandate.id} has already paid; omit mandate_id for a new one`,
      );
    }
    return mandate;
  }

  private async wasSpent(mandateId: string): Promise<boolean> {
    return this.tokens.wasSpentOnMandate(mandateId);
  }

  private echoed(metadata: Record<string, string>): Record<string, string> {
    return Object.fromEntries(
      Object.entries(metadata).filter(([k]) => !SYSTEM_METADATA.includes(k)),
    );
  }
}
