import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * pending → authorised (the person; the mandate's columns now hold new_terms) | declined (the
 * person) | expired (unanswered by expires_at) | withdrawn (the mandate ended or was revoked first).
 */
export type AmendmentStatus = 'pending' | 'authorised' | 'declined' | 'expired' | 'withdrawn';

/** The terms an amendment may change, in their wire form (stored as jsonb, shown side by side). */
export interface MandateTerms {
  per_payment_cap_paise: number;
  valid_until: string;
  payee_agent_ids: string[] | null;
}

export type AmendableTerm = keyof MandateTerms;
export const AMENDABLE_TERMS: readonly AmendableTerm[] = [
  'per_payment_cap_paise',
  'valid_until',
  'payee_agent_ids',
];

/**
 * A buyer agent's request to change a mandate's terms (docs/mandates.md "Mandates, approvals and the consent
 * centre"; RBI E-Mandate Framework 2026: modifying a mandate needs fresh authorisation). The old
 * and new terms are kept as they were shown to the person; the mandate changes only when the
 * person authorises. Every step is also an entry on the mandate's receipt chain (`chainId`, the
 * mandate's id).
 */
@Entity('mandate_amendments')
export class MandateAmendment {
  @PrimaryColumn('text') id: string;
  @Column('text') mandateId: string;
  @Column('text') workspaceId: string;
  @Column('text') buyerAgentId: string;
  @Column('text') status: AmendmentStatus;
  @Column('jsonb') oldTerms: MandateTerms;
  @Column('jsonb') newTerms: MandateTerms;
  @Column('text', { array: true }) changed: AmendableTerm[];
  @Column('text', { nullable: true }) reason: string | null;
  @Column('text') chainId: string;
  @Column('timestamptz') createdAt: Date;
  @Column('timestamptz') expiresAt: Date;
  @Column('text', { nullable: true }) decidedBy: string | null;
  @Column('timestamptz', { nullable: true }) decidedAt: Date | null;
  @Column('text', { nullable: true }) decisionNote: string | null;
}
