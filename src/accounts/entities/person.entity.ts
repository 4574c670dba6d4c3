import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A human who signs in to the service's app; the only actor that can approve. */
@Entity('persons')
export class Person {
  @PrimaryColumn('text') id: string;
  @Column('text') workspaceId: string;
  @Column('text') email: string;
  @Column('text') name: string;
  @Column('text') passwordHash: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
