import { Column, Entity, PrimaryColumn } from 'typeorm';

export type WebhookAttemptTrigger = 'scheduled' | 'manual';

/** One HTTP try of a delivery: what the receiver answered, or why there was no answer. */
@Entity('webhook_attempts')
export class WebhookAttempt {
  @PrimaryColumn('text') id: string;
  @Column('text') deliveryId: string;
  /** 1, 2, 3… per delivery, scheduled and manual alike. */
  @Column('integer') attempt: number;
  @Column('text') trigger: WebhookAttemptTrigger;
  @Column('integer', { nullable: true }) statusCode: number | null;
  @Column('integer') durationMs: number;
  @Column('text', { nullable: true }) error: string | null;
  /** First 1 KB of the response body. */
  @Column('text', { nullable: true }) responseBody: string | null;
  @Column('timestamptz') createdAt: Date;
}
