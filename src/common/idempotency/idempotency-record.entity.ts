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
   * calling its rail): a short lease its process renews while it runs (IN_FLIGHT_LEASE_MS). A retry
   * meanwhile is 409 idempotency_in_flight; past this time (the process or Postgres died) the key is
   * taken over by the retry, which answers the payment recorded on it (`intentId`).
   */
  @Column('timestamptz', { nullable: true }) pendingUntil: Date | null;
  /**
   * The payment the request recorded in its first transaction (with an answer finished after
   * commit): a retry that takes over the key after its holder died answers this payment's state.
   */
  @Column('text', { nullable: true }) intentId: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @Column('timestamptz') expiresAt: Date;
}
