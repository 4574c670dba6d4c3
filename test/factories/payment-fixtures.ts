import { newId, randomToken } from '../../src/common/ids';
import type { MandateStatus } from '../../src/mandates/mandate.entity';
import type { TestApp } from '../support/app';
import type { SeededWorkspace } from '../support/seed';

/**
 * Mandates and delegated tokens inserted straight into the database, so checkout can be tested
 * without the delegate_payment API. Defaults: an active standing mandate of the seed buyer agent
 * (cap ₹10,000, any payee, valid for 30 days) and a usable token for one session of the seed seller.
 */
export interface MandateFixture {
  status?: MandateStatus;
  perPaymentCapPaise?: number;
  payeeAgentIds?: string[] | null;
  validUntil?: Date;
}

export async function insertMandate(
  t: TestApp,
  ws: SeededWorkspace,
  over: MandateFixture = {},
): Promise<string> {
  const now = t.clock.now();
  const id = newId('mdt');
  await t.db.query(
    `INSERT INTO mandates (id, workspace_id, buyer_agent_id, kind, rail, per_payment_cap_paise, payee_agent_ids,
                           valid_from, valid_until, status, description, authorised_at, created_at)
     VALUES ($1, $2, $3, 'standing', 'upi_reserve_pay', $4, $5, $6, $7, $8, 'checkout test mandate', $9, $10)`,
    [
      id,
      ws.workspaceId,
      ws.buyer.id,
      over.perPaymentCapPaise ?? 1_000_000,
      over.payeeAgentIds ?? null,
      new Date(now.getTime() - 3600_000),
      over.validUntil ?? new Date(now.getTime() + 30 * 86400_000),
      over.status ?? 'active',
      over.status === 'pending_authorisation' ? null : now,
      now,
    ],
  );
  return id;
}

export interface TokenFixture {
  sessionId: string;
  mandateId: string;
  maxAmountPaise?: number;
  expiresAt?: Date;
  status?: 'usable' | 'used' | 'revoked';
  merchantAgentId?: string;
}

/** A vt_ token as delegate_payment would mint it (alphanumeric after the prefix). */
export async function insertToken(
  t: TestApp,
  ws: SeededWorkspace,
  over: TokenFixture,
): Promise<string> {
  const now = t.clock.now();
  const id = `vt_${randomToken(24)}`;
  await t.db.query(
    `INSERT INTO delegated_tokens (id, workspace_id, buyer_agent_id, protocol_key_id, mandate_id, checkout_session_id,
                                   merchant_agent_id, max_amount_paise, currency, expires_at, status, metadata,
                                   revoked_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'INR', $9, $10, '{}'::jsonb, $11, $12)`,
    [
      id,
      ws.workspaceId,
      ws.buyer.id,
      ws.buyerKeyId,
      over.mandateId,
      over.sessionId,
      over.merchantAgentId ?? ws.seller.id,
      over.maxAmountPaise ?? 1_000_000,
      over.expiresAt ?? new Date(now.getTime() + 3600_000),
      over.status ?? 'usable',
      over.status === 'revoked' ? now : null,
      now,
    ],
  );
  return id;
}

/**
 * A delegate_payment body (docs/acp.md §6): a one-time token on a standing mandate for one
 * checkout session of `merchantId`, up to `maxAmountPaise`, valid for `validForMs` from `now`.
 */
export function mandateDelegateBody(p: {
  mandateId: string;
  sessionId: string;
  merchantId: string;
  maxAmountPaise: number;
  now: Date;
  validForMs?: number;
}) {
  return {
    payment_method: { type: 'svc_mandate', mandate_id: p.mandateId },
    allowance: {
      reason: 'one_time',
      max_amount: p.maxAmountPaise,
      currency: 'inr',
      checkout_session_id: p.sessionId,
      merchant_id: p.merchantId,
      expires_at: new Date(p.now.getTime() + (p.validForMs ?? 3600_000)).toISOString(),
    },
    risk_signals: [],
    metadata: {},
  };
}
