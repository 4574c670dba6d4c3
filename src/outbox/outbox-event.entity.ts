import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Transactional outbox: written with the state change it announces; delivered later. Never updated:
 * while it waits for the dispatcher its id is also in outbox_pending (src/outbox/outbox.repository.ts).
 */
@Entity('outbox_events')
export class OutboxEvent {
  @PrimaryColumn('text') id: string;
  @Column('text') workspaceId: string;
  @Column('text') agentId: string;
  @Column('text') type: string;
  @Column('text') subjectId: string;
  @Column('jsonb') payload: Record<string, unknown>;
  @Column('timestamptz') createdAt: Date;
}
