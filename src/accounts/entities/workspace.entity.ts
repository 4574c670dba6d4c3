import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

@Entity('workspaces')
export class Workspace {
  @PrimaryColumn('text') id: string;
  @Column('text') name: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
