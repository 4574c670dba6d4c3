import { Inject, Injectable } from '@nestjs/common';

import { CheckoutSession, CheckoutStatus } from '../checkout/checkout-session.entity';
import { AuditActor, AuditLog } from '../common/audit';
import type { ProtocolKeyPrincipal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { paiseFromSql } from '../common/money';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { QueuedStatement, Tx } from '../database/tx';
import { MAX_PER_PAYMENT_CAP_PAISE } from '../mandates/dto/create-mandate.dto';
import type { Mandate } from '../mandates/mandate.entity';
import { authorizationUrl } from '../mandates/mandate.mapper';
import { MandatesService } from '../mandates/mandates.service';
import { parseRfc3339 } from '../mandates/rfc3339';
import { delegatePaymentErrors as errors } from './delegate-payment.errors';
import { DelegatedToken } from './delegated-token.entity';
import { AllowanceDto, DelegatePaymentDto } from './dto/delegate-payment.dto';
import { DelegatePaymentResponse } from './dto/delegate-payment.response';
import { parsePaymentMethod } from './payment-method';

/** A delegated token lives at most 7 days (docs/acp.md §6). */
const MAX_TOKEN_LIFETIME_MS = 7 * 24 * 3600_000;
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
    return this.tx.run(async (m) => {
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
          : await m.findOneBy(CheckoutSession, { id: allowance.checkoutSessionId }),
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
      await this.tx.writeBeforeCommit('delegated_tokens.insert', token, insertTokens);
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
    const rows = await this.tx.manager.query<
      {
        id: string;
        merchant_agent_id: string;
        merchant_name: string;
        max_amount_paise: string;
        expires_at: Date;
        checkout_session_id: string;
        mandate_id: string;
        waiting_intent_id: string | null;
      }[]
    >(
      `SELECT t.id, t.merchant_agent_id, a.name AS merchant_name, t.max_amount_paise, t.expires_at, t.checkout_session_id, t.mandate_id,
              w.id AS waiting_intent_id
         FROM delegated_tokens t
         JOIN agents a ON a.id = t.merchant_agent_id
         LEFT JOIN payment_intents w ON w.token_id = t.id AND w.status = 'requires_approval'
        WHERE t.workspace_id = $1
          AND ((t.status = 'usable' AND t.expires_at > $2) OR (t.status = 'used' AND w.id IS NOT NULL))
        ORDER BY t.created_at DESC, t.id DESC
        LIMIT $3`,
      [workspaceId, this.clock.now(), limit],
    );
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
    return this.tx.manager.exists(DelegatedToken, { where: { mandateId, status: 'used' } });
  }

  private echoed(metadata: Record<string, string>): Record<string, string> {
    return Object.fromEntries(
      Object.entries(metadata).filter(([k]) => !SYSTEM_METADATA.includes(k)),
    );
  }
}

/** New delegated tokens as one INSERT (Tx.writeBeforeCommit; parallel arrays). */
function insertTokens(rows: DelegatedToken[]): QueuedStatement {
  return {
    sql: `INSERT INTO delegated_tokens (id, workspace_id, buyer_agent_id, protocol_key_id, mandate_id,
       checkout_session_id, merchant_agent_id, max_amount_paise, currency, expires_at, status, metadata,
       created_at)
     SELECT id, ws, buyer, pk, mdt, cs, merchant, amount, cur, ea::timestamptz, st, md::jsonb, ca::timestamptz
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                   $8::bigint[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[])
            AS r(id, ws, buyer, pk, mdt, cs, merchant, amount, cur, ea, st, md, ca)`,
    params: [
      rows.map((r) => r.id),
      rows.map((r) => r.workspaceId),
      rows.map((r) => r.buyerAgentId),
      rows.map((r) => r.protocolKeyId),
      rows.map((r) => r.mandateId),
      rows.map((r) => r.checkoutSessionId),
      rows.map((r) => r.merchantAgentId),
      rows.map((r) => r.maxAmountPaise),
      // Stored upper case, as the entity's lowerCaseCurrency transformer writes it.
      rows.map((r) => r.currency.toUpperCase()),
      rows.map((r) => r.expiresAt.toISOString()),
      rows.map((r) => r.status),
      rows.map((r) => JSON.stringify(r.metadata)),
      rows.map((r) => r.createdAt.toISOString()),
    ],
  };
}
