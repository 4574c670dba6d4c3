import { newId } from '../../src/common/ids';
import type { MandateRail, MandateStatus } from '../../src/mandates/mandate.entity';
import type { TestApp } from '../support/app';

export interface MandateOverrides {
  perPaymentCapPaise?: number;
  payeeAgentIds?: string[] | null;
  status?: MandateStatus;
  validFrom?: Date;
  validUntil?: Date;
  /**
   * Default upi_reserve_pay. On the gateway rail a Reserve Pay mandate pays from a block; tests of
   * the recurring-token path use upi_otm.
   */
  rail?: MandateRail;
}

/**
 * Inserts a standing UPI mandate for a buyer agent, active by default (as if its person had
 * authorised it): cap ₹10,000 per payment, any payee, valid from an hour ago for 30 days.
 */
export async function createMandate(
  t: TestApp,
  buyer: { workspaceId: string; agentId: string },
  over: MandateOverrides = {},
): Promise<string> {
  const now = t.clock.now();
  const id = newId('mdt');
  await t.db.query(
    `INSERT INTO mandates (id, workspace_id, buyer_agent_id, kind, rail, per_payment_cap_paise, payee_agent_ids,
                           valid_from, valid_until, status, description, created_at)
     VALUES ($1, $2, $3, 'standing', $10, $4, $5, $6, $7, $8, 'test mandate', $9)`,
    [
      id,
      buyer.workspaceId,
      buyer.agentId,
      over.perPaymentCapPaise ?? 1_000_000,
      over.payeeAgentIds ?? null,
      over.validFrom ?? new Date(now.getTime() - 3600_000),
      over.validUntil ?? new Date(now.getTime() + 30 * 86400_000),
      over.status ?? 'active',
      now,
      over.rail ?? 'upi_reserve_pay',
    ],
  );
  return id;
}
