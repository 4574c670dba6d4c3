import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

import type { AgentRole } from '../../common/auth/roles';
import type { PublicKeyAlg } from '../../common/signing/public-key';
import type { AgentStatus } from '../party-lifecycle';

/** Defined in common, below the auth guards that read it; re-exported for this module's readers. */
export type { AgentRole };

@Entity('agents')
export class Agent {
  @PrimaryColumn('text') id: string;
  @Column('text') workspaceId: string;
  @Column('text') name: string;
  @Column('text') role: AgentRole;
  @Column('text') credentialHash: string;
  @Column('text') credentialHint: string;
  @Column('text', { nullable: true }) publicKeyPem: string | null;
  @Column('text', { nullable: true }) publicKeyAlg: PublicKeyAlg | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @Column('timestamptz', { nullable: true }) disabledAt: Date | null;
  /** src/accounts/party-lifecycle.ts; `disabled` with disabled_at set. */
  @Column('text', { default: 'active' }) status: AgentStatus;
}

export function canSell(role: AgentRole): boolean {
  return role === 'seller' || role === 'both';
}

export function canBuy(role: AgentRole): boolean {
  return role === 'buyer' || role === 'both';
}
