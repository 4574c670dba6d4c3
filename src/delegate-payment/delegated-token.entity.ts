import { Column, Entity, PrimaryColumn } from 'typeorm';

import { paise } from '../database/bigint.transformer';
import { lowerCaseCurrency } from '../database/currency.transformer';

export type TokenStatus = 'usable' | 'used' | 'revoked';

/** A one-time delegated token (vt_…) minted by delegate_payment; expiry is derived from expires_at. */
@Entity('delegated_tokens')
export class DelegatedToken {
  @PrimaryColumn('text') id: string;
  @Column('text') workspaceId: string;
  @Column('text') buyerAgentId: string;
  @Column('text') protocolKeyId: string;
  @Column('text') mandateId: string;
  @Column('text') checkoutSessionId: string;
  @Column('text') merchantAgentId: string;
  @Column('bigint', { transformer: paise }) maxAmountPaise: number;
  /** Wire spelling ('inr'); stored upper case. */
  @Column('text', { transformer: lowerCaseCurrency }) currency: string;
  @Column('timestamptz') expiresAt: Date;
  @Column('text') status: TokenStatus;
  @Column('jsonb') metadata: Record<string, string>;
  @Column('timestamptz', { nullable: true }) usedAt: Date | null;
  @Column('timestamptz', { nullable: true }) revokedAt: Date | null;
  @Column('timestamptz') createdAt: Date;
}
