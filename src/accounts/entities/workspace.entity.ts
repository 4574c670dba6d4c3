import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

import type { WorkspaceStatus } from '../party-lifecycle';

/**
 * `forex_partner`: an AD Category-II partner's workspace, its people are dealers (migration
 * 1763700001400-Forex); `operator`: the service's own operators (1763700001700-Operators);
 * everyone else `standard`.
 */
export type WorkspaceKind = 'standard' | 'forex_partner' | 'operator';

@Entity('workspaces')
export class Workspace {
  @PrimaryColumn('text') id: string;
  @Column('text') name: string;
  @Column('text', { default: 'standard' }) kind: WorkspaceKind;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  /** src/accounts/party-lifecycle.ts; `closed` with erased_at set. */
  @Column('text', { default: 'active' }) status: WorkspaceStatus;
}
