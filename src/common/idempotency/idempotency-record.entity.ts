import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('idempotency_records')
export class IdempotencyRecord {
  @PrimaryGeneratedColumn({ type: 'bigint' }) id: string;
  @Column('text') ownerId: string;
  @Column('text') method: string;
  @Column('text') path: string;
  @Column('text') key: string;
  @Column('text') requestHash: string;
  @Column('integer') statusCode: number;
  /**
   * The response text exactly as first sent (secrets redacted), the answer's only copy: what a
   * replay sends.
   */
  @Column('text', { nullable: true }) responseRaw: string | null;
  /**
   * Set while the request's answer is finished after its first transaction committed (a payment
   * calling its rail): a retry meanwhile is 409 idempotency_in_flight; past this time (the process
   * died) the record is dropped and the key runs again.
   */
  @Column('timestamptz', { nullable: true }) pendingUntil: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @Column('timestamptz') expiresAt: Date;
}
