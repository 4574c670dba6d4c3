import { MandateResponse } from './dto/mandate.response';
import type { Mandate } from './mandate.entity';
import { effectiveMandateStatus } from './mandate.state';

export function authorizationUrl(appUrl: string, mandateId: string): string {
  return `${appUrl}/mandates/${mandateId}/authorize`;
}

export function toMandateResponse(m: Mandate, now: Date, appUrl: string): MandateResponse {
  return {
    id: m.id,
    object: 'mandate',
    buyer_agent_id: m.buyerAgentId,
    kind: m.kind,
    rail: m.rail,
    recurring: m.billingCycle
      ? {
          billing_cycle: m.billingCycle,
          max_per_debit_paise: m.perPaymentCapPaise,
          proposed_max_per_debit_paise: m.proposedCapPaise ?? m.perPaymentCapPaise,
        }
      : null,
    per_payment_cap_paise: m.perPaymentCapPaise,
    payee_agent_ids: m.payeeAgentIds,
    valid_from: m.validFrom.toISOString(),
    valid_until: m.validUntil.toISOString(),
    status: effectiveMandateStatus(m, now),
    description: m.description,
    authorization_url: authorizationUrl(appUrl, m.id),
    authorised_at: m.authorisedAt ? m.authorisedAt.toISOString() : null,
    created_at: m.createdAt.toISOString(),
  };
}
