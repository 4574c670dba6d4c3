import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** `operator`: the service's own operators (migration 1763700001700-Operators); everyone else `standard`. */
export type WorkspaceKind = 'standard' | 'operator';

@Entity('workspaces')
export class Workspace {
  @PrimaryColumn('text') id: string;
  @Column('text') name: string;
  @Column('text', { default: 'standard' }) kind: WorkspaceKind;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
