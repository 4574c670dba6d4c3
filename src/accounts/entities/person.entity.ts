import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** `operator`: may use the operator tools when in an operator workspace; everyone else `member`. */
export type PersonRole = 'member' | 'operator';

/** A human who signs in to the service's app; the only actor that can approve. */
@Entity('persons')
export class Person {
  @PrimaryColumn('text') id: string;
  @Column('text') workspaceId: string;
  @Column('text') email: string;
  @Column('text') name: string;
  @Column('text') passwordHash: string;
  @Column('text', { default: 'member' }) role: PersonRole;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
