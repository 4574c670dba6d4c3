import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

@Entity('person_sessions')
export class PersonSession {
  @PrimaryColumn('text') id: string;
  @Column('text') personId: string;
  @Column('text') tokenHash: string;
  @Column('text') csrfSecretHash: string;
  @Column('timestamptz') expiresAt: Date;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
