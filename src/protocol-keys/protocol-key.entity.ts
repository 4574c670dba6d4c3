import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

import type { ProtocolKeyRole } from '../common/auth/roles';
import type { PublicKeyAlg } from '../common/signing/public-key';

/** Defined in common, below the auth guards that read it; re-exported for this module's readers. */
export type { ProtocolKeyRole };

/**
 * A protocol key (docs/security.md "Credentials and who uses which"): bearer for /acp, bound to one agent,
 * optionally with a public key.
 */
@Entity('protocol_keys')
export class ProtocolKey {
  @PrimaryColumn('text') id: string;
  @Column('text') workspaceId: string;
  @Column('text') agentId: string;
  @Column('text') role: ProtocolKeyRole;
  @Column('text') name: string;
  @Column('text') secretHash: string;
  @Column('text') hint: string;
  @Column('text', { nullable: true }) publicKeyPem: string | null;
  @Column('text', { nullable: true }) publicKeyAlg: PublicKeyAlg | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @Column('timestamptz', { nullable: true }) lastUsedAt: Date | null;
  @Column('timestamptz', { nullable: true }) revokedAt: Date | null;
}
